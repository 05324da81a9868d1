"""Paper B: softmax attention retrieves with a certified inverse temperature beta."""

from symrel.report import Statement

STATEMENT = Statement(
    key="b4-softmax-retrieval",
    paper="B",
    reference="Retrieval theorem (softmax)",
    title="softmax attention retrieves with weight 1 - eps at a certified beta",
    paper_claim="Attention with softmax approximates the retrieval mechanism of a preorder: with scores "
    "beta times a utility, the attention weight concentrates on the maximal keys as beta grows.",
    symrel_claim="For each instance (a finite retrieval task with n keys, a complete preorder per query, "
    "and eps): with utility gap eta = 1, softmax attention puts weight >= 1/(1 + (n-1) exp(-beta eta)) on the "
    "maximal keys, which is >= 1 - eps once beta >= ln((n-1)(1-eps)/eps)/eta; symrel computes this beta as "
    "an exact rational upper bound (rigorous enclosures of exp and ln, cross-checked against rational Taylor "
    "bounds), builds the attention of the symrel construction with scores beta u_x(y) exactly, and proves "
    "both the hardmax retrieval (every set of at most 3 keys) and that every query's least score gap is at "
    "least the certified beta. The worst weight on the maximal keys over all queries, evaluated with 50 "
    "digits, is reported next to 1 - eps. A control must stay open: beta = 1 with eps = 1/1000.",
    narrowing="Finite tasks with rational feature points and an exact utility gap of 1 (the Debreu rank), "
    "rather than continuous preorders and approximate utilities; the bound is the closed form of docs/theory.md "
    "section 6 made rigorous; the high-precision weights are a numerical check, not part of the proof.",
)


def run():
    from symrel.preorders.generators import random_retrieval_task
    from symrel.preorders.retrieval import build_retrieval_attention, prove_retrieval
    from symrel.report import Instance

    for queries, keys, eps, seed in [(3, 4, "1/10", 41), (5, 10, "1/100", 42), (8, 20, "1/1000", 43),
                                     (4, 12, "1/1000000", 44)]:
        task = random_retrieval_task(queries, keys, dim=2, seed=seed)
        att = build_retrieval_attention(task, eps=eps)
        proof = prove_retrieval(task, att, max_subset=3, eps=eps)
        yield Instance(f"{queries} queries, {keys} keys, eps = {eps}", proof,
                       facts={"keys n": keys, "eps": eps, "certified beta": att.beta,
                              "worst weight on maximal keys (50 digits)": worst_weight(task, att)})
    task = random_retrieval_task(4, 10, dim=2, seed=45)
    att = build_retrieval_attention(task, beta=1)
    yield Instance("control: beta = 1 is too small for eps = 1/1000", prove_retrieval(task, att, eps="1/1000"),
                   facts={"keys n": 10, "eps": "1/1000", "certified beta": 1,
                          "worst weight on maximal keys (50 digits)": worst_weight(task, att)}, expect="open")


def worst_weight(task, att, digits: int = 50) -> str:
    """The least softmax weight on the maximal keys over all queries (all keys attended),
    evaluated with mpmath at ``digits`` digits: a numerical check beside the proof."""
    import mpmath

    from symrel.exact import to_fraction

    worst = None
    with mpmath.workdps(digits):
        for row, q in zip(att.score_matrix(task), task.query_names):
            s = [mpmath.mpf(to_fraction(v).numerator) / to_fraction(v).denominator for v in row]
            top = max(s)
            z = mpmath.fsum(mpmath.exp(v - top) for v in s)
            w = mpmath.fsum(mpmath.exp(v - top) for v in s if v == top) / z
            worst = w if worst is None else min(worst, w)
        return mpmath.nstr(worst, 12)


if __name__ == "__main__":
    from symrel.statements import standalone

    raise SystemExit(standalone(__file__))
