"""A model read from a file (``.onnx``, ``.nnet``, PyTorch) with where it came from and how
its numbers were read: the record ``symrel import`` writes beside the model. No optional
library is needed to hold one (an ``.nnet`` file is read without numpy).

>>> from symrel.models import DenseLayer, ReLUNet
>>> m = ImportedModel(ReLUNet(1, [DenseLayer([[2]], [0], "none")]), "double.nnet", "nnet", ["decimal"])
>>> m.provenance()["numbers"], m.provenance()["from_floats"]
('decimal strings read exactly as decimals', False)
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class ImportedModel:
    """A model read from a file, with where it came from and how its numbers were read."""

    model: object
    source: str
    format: str
    number_types: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def provenance(self) -> dict:
        """The record written beside the model (``"provenance"`` key of the JSON file)."""
        reads = {
            "onnx": "float tensors read exactly as dyadic rationals, bit for bit",
            "nnet": "decimal strings read exactly as decimals",
            "torch": "float tensors read exactly as dyadic rationals, bit for bit",
        }
        return {"source": self.source, "format": self.format, "from_floats": self.format != "nnet",
                "number_types": self.number_types, "numbers": reads.get(self.format, ""), "notes": self.notes}
