# Makes a report from a real run machine-independent, for the golden tests:
# pids, tids, host, times of day, paths, build-ids and addresses become
# fixed values; the measured numbers stay. (jq 1.6)
def hex2num: ltrimstr("0x") | ascii_downcase | explode
  | reduce .[] as $c (0; . * 16 + (if $c >= 97 then $c - 87 else $c - 48 end));
def num2hex: if . == 0 then "0" else
  [recurse(if . >= 16 then (. / 16 | floor) else empty end) | . % 16]
  | reverse | map(if . < 10 then . + 48 else . + 87 end) | implode end;
def base($k): if $k == 0 then 93824992231424 else 139637976727552 + $k * 16777216 end;
(.threads | map(.tid) | sort) as $tids
| def tid($t): 1000 + ($tids | index($t));
  .process.pid = 1000 | .process.ppid = 999 | .process.host = "sample-host"
| .process.argv = ["./demo"]
| .process.start_ns = 1000000000000000
| .process.end_ns = 1000000000000000 + .process.wall_ns
| .clock.ticks_per_us = 3000
| .threads |= map(.tid = tid(.tid))
| .errors |= map(.tid = tid(.tid))
| .modules |= map(.base = "0x" + (base(.id) | num2hex)
    | .path = "/opt/pmcshim-sample/" + (.path | split("/") | last)
    | .build_id = ("0000000000000000000000000000000000000000" + (.id | tostring)) [-40:])
| .stacks |= map(.frames |= map(
    if .module >= 0 then .addr = "0x" + ((base(.module) + (.offset | hex2num)) | num2hex)
    else . end))
