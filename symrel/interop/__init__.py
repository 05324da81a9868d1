"""Interoperation with numeric formats and libraries: ``.nnet`` files, float
tensors (read exactly as dyadic rationals), numpy, PyTorch and ONNX.

Only the ``.nnet`` reader needs nothing beyond the core dependencies; every other
module imports numpy, torch or onnx lazily inside its functions.
"""

from .nnet import NNetFile, load_nnet, nnet_input_box, read_nnet

__all__ = ["NNetFile", "load_nnet", "nnet_input_box", "read_nnet"]
