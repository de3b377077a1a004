-- string-heavy workload: interning, concatenation, sorting with string compares
local t = {}
for i = 1, 60000 do
  t[#t + 1] = "key" .. (i * 7919 % 100003) .. "_" .. (i % 97)
end
table.sort(t)
local n = 0
for round = 1, 3 do
  local m = {}
  for i, s in ipairs(t) do
    local k = s:sub(1, 6) .. round
    m[k] = (m[k] or 0) + #s
    if s < t[(i % #t) + 1] then n = n + 1 end
  end
end
local function fib(x) if x < 2 then return x end return fib(x - 1) + fib(x - 2) end
print(n, fib(20))
