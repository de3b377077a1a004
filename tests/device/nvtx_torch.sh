#!/bin/sh
# Device check (not part of make test): PyTorch's own NVTX ranges through
# the shim. A training loop of 50 steps, each in
# torch.cuda.nvtx.range_push("step")/range_pop(), must give the region
# `step` (source nvtx) exactly 50 calls. Run it where python3 has torch
# with CUDA (the lent device machine, with the built shim, launcher and
# reader carried): B=build sh tests/device/nvtx_torch.sh
# Elsewhere it says it skips, and why.
B=${B:-build}
steps=50
if ! python3 -c 'import torch, sys; sys.exit(not torch.cuda.is_available())' 2>/dev/null; then
	echo "SKIP nvtx_torch (python3 has no torch with a CUDA device here)"
	exit 0
fi
tmp=$(mktemp -d) || exit 1
cat >"$tmp/loop.py" <<PY
import torch
model = torch.nn.Linear(256, 256).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.01)
x = torch.randn(64, 256, device="cuda")
for i in range($steps):
    torch.cuda.nvtx.range_push("step")
    loss = model(x).square().mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    torch.cuda.nvtx.range_pop()
torch.cuda.synchronize()
print("loss", float(loss))
PY
"$B/pmcshim" -q -o "$tmp/run" python3 "$tmp/loop.py" >"$tmp/out" 2>&1
rc=$?
calls=$("$B/pmcshim-report" --format csv --source nvtx "$tmp/run" 2>/dev/null |
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
		$h["region"] == "step" { print $h["calls"] }')
if [ $rc = 0 ] && [ "$calls" = "$steps" ]; then
	echo "ok   nvtx_torch (step: $calls calls)"
	rm -rf "$tmp"
	exit 0
fi
echo "FAIL nvtx_torch: exit $rc, step calls '$calls' (want $steps)"
tail -5 "$tmp/out"
exit 1
