"""One module per subcommand. Each defines ``register(subparsers)``, which adds
its parser and sets ``func`` to a function ``args -> exit code``.

:data:`SUMMARIES` names every subcommand with its one-line help, so that
``symrel --help`` and ``symrel --version`` list them without importing their modules
(which import sympy and the provers); the module of ``NAME`` is :func:`module_name`.
"""

import keyword

#: subcommand -> its one-line help, in the order ``symrel --help`` lists them
SUMMARIES = {
    "audit-tracr": "audit a tracr-compiled Transformer on every input, exactly",
    "bounds": "certified exact bounds of a ReLU net's outputs over a box (checked by the trusted checker), "
              "tightened by branching within a budget",
    "check-certificate": "check a certificate with exact arithmetic (the trusted checker)",
    "compile": "compile a maxout/ReLU/CPWL model into a hardmax Transformer (Thm 3.1)",
    "convert": "convert a model (relu, cpwl1d, cpwl) to its maxout form, or a relu/maxout net to a cpwl mesh "
               "on a domain",
    "crossval": "cross-validate a float implementation (numpy, torch, onnxruntime) against exact evaluation",
    "demo": "build a small maxout net and evaluate it exactly",
    "eval": "evaluate a model exactly at one point or a batch",
    "export": "export a symrel model to ONNX or PyTorch, weights rounded to a float dtype",
    "export-coq": "write a certificate's claim as a Coq folder that Coq's kernel replays (docs/coq.md)",
    "import": "import an ONNX or .nnet network exactly as a symrel model",
    "info": "kind, sizes and parameter count of a model",
    "mutate": "mutation campaign: single-parameter mutants against every prover",
    "preorder": "indifference classes, completeness and the Debreu utility of a preorder",
    "proofs": "re-check the statements of both papers and write their reports",
    "prove": "prove A(x) = B(x) for all x in a domain, layer by layer",
    "regions": "count linear or activation regions exactly over a domain",
    "relation": "exact ReLU features phi, psi realising a relation table",
    "retrieval": "build and prove attention that retrieves the maximal keys of each query's preorder",
    "softmax-bound": "certified lambda: softmax within eps of hardmax on a box",
    "verify": "decide a VNN-LIB property of a ReLU, maxout or layered net exactly (unsat with a certificate, "
              "sat with an exact witness), or referee another verifier's witness",
}


def module_name(command: str) -> str:
    """The module of a subcommand: ``check-certificate`` -> ``check_certificate``,
    ``import`` -> ``import_`` (a keyword).

    >>> module_name("softmax-bound"), module_name("import")
    ('softmax_bound', 'import_')
    """
    name = command.replace("-", "_")
    return name + "_" if keyword.iskeyword(name) else name
