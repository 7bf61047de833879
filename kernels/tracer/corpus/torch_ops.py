# torch_ops.py: four PyTorch operators on the GPU (torch is installed on the H200 machine), each
# checked against a CPU computation: a matmul (cuBLAS/cuBLASLt underneath), a softmax over rows, a
# transpose made contiguous, and a sum over rows. Library kernels no one here wrote, traced as they
# ship: `bankscope-gpu trace -- python3 torch_ops.py`.
import sys

import torch

torch.manual_seed(0)
dev = "cuda"
bad = 0
a = torch.randn(384, 256, device=dev)
b = torch.randn(256, 320, device=dev)
bad += not torch.allclose((a @ b).cpu(), a.cpu() @ b.cpu(), atol=1e-2, rtol=1e-3)
x = torch.randn(300, 1000, device=dev)
bad += not torch.allclose(torch.softmax(x, dim=1).cpu(), torch.softmax(x.cpu(), dim=1), atol=1e-5)
t = torch.randn(1000, 999, device=dev)
bad += not torch.equal(t.t().contiguous().cpu(), t.cpu().t().contiguous())
bad += not torch.allclose(x.sum(dim=1).cpu(), x.cpu().sum(dim=1), atol=1e-3, rtol=1e-4)
torch.cuda.synchronize()
print("torch_ops:", "ok" if bad == 0 else "WRONG")
sys.exit(0 if bad == 0 else 1)
