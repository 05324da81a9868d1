"""The ``nn.Module`` layers :func:`symrel.interop.torch_io.to_torch` puts in an
``nn.Sequential`` where PyTorch has no layer of its own (maxout, the
Transformer's embedding, attention, feed-forward and readout).

They live at module level, so ``torch.save(module)`` pickles them and a state
dict written from one loads into a ``nn.Sequential`` built the same way; every
weight is an ``nn.Parameter``. Without torch (the ``torch`` extra) the module
imports but defines nothing.
"""

from __future__ import annotations

try:
    import torch
    from torch import nn
except ImportError:  # pragma: no cover - the torch extra is optional
    torch = None

if torch is not None:
    def as_tensor(a, dtype):
        """A numpy array of any float dtype (bfloat16 included) as a tensor of ``dtype``;
        every value goes through float64, which holds it exactly."""
        import numpy as np

        return torch.from_numpy(np.asarray(a).astype(np.float64)).to(dtype)


    def _param(a, dtype) -> nn.Parameter:
        return nn.Parameter(as_tensor(a, dtype))


    class GroupMax(nn.Module):
        """A maxout layer: the last axis, of size ``q * rank``, split into q groups of
        ``rank`` consecutive entries, each replaced by its maximum."""

        def __init__(self, rank: int):
            super().__init__()
            self.rank = rank

        def forward(self, z):
            return z.reshape(*z.shape[:-1], -1, self.rank).amax(dim=-1)

        def extra_repr(self) -> str:
            return f"rank={self.rank}"


    class Embed(nn.Module):
        """``x (N, d) -> Z (N, T, m)``: token t is ``offsets[t] + E x``."""

        def __init__(self, E, offsets, dtype=torch.float32):
            super().__init__()
            self.E = _param(E, dtype)  # m x d
            self.offsets = _param(offsets, dtype)  # T x m

        def forward(self, x):
            return (x @ self.E.T)[:, None, :] + self.offsets[None, :, :]


    class AttentionHead(nn.Module):
        """One head's four matrices (scores ``(z_t W_Q^T) . (z_s W_K^T)``)."""

        def __init__(self, WQ, WK, WV, WO, dtype=torch.float32):
            super().__init__()
            self.WQ, self.WK, self.WV, self.WO = (_param(M, dtype) for M in (WQ, WK, WV, WO))


    class Attention(nn.Module):
        """``Z + sum_h (sigma(S_h) Z W_V^T) W_O^T``; ``sigma`` is softmax with a
        scale, or hardmax averaging over the scores equal in floats (symrel's rule)."""

        def __init__(self, heads, rule: str, scale=None, dtype=torch.float32):
            super().__init__()
            self.heads = nn.ModuleList(AttentionHead(*h, dtype=dtype) for h in heads)
            self.rule = rule
            if scale is not None:
                self.scale = _param([scale], dtype)
            else:
                self.scale = None

        def forward(self, z):
            out = z
            for h in self.heads:
                s = (z @ h.WQ.T) @ (z @ h.WK.T).transpose(1, 2)
                if self.rule == "softmax":
                    a = torch.softmax(s * self.scale, dim=-1)
                else:
                    top = (s == s.amax(dim=-1, keepdim=True)).to(z.dtype)
                    a = top / top.sum(dim=-1, keepdim=True)
                out = out + (a @ (z @ h.WV.T)) @ h.WO.T
            return out

        def extra_repr(self) -> str:
            return f"rule={self.rule!r}"


    class FeedForward(nn.Module):
        """``Z + ReLU(Z W1^T + b1) W2^T + b2`` token by token."""

        def __init__(self, W1, b1, W2, b2, dtype=torch.float32):
            super().__init__()
            self.W1, self.b1, self.W2, self.b2 = (_param(M, dtype) for M in (W1, b1, W2, b2))

        def forward(self, z):
            h = torch.relu(z @ self.W1.T + self.b1)
            return z + (h @ self.W2.T + self.b2)  # the numpy back-end's order of roundings


    class Readout(nn.Module):
        """``W z_token + b``: ``(N, T, m) -> (N, k)``."""

        def __init__(self, token: int, W, b, dtype=torch.float32):
            super().__init__()
            self.token = token
            self.W, self.b = _param(W, dtype), _param(b, dtype)

        def forward(self, z):
            return z[:, self.token, :] @ self.W.T + self.b

        def extra_repr(self) -> str:
            return f"token={self.token}"
