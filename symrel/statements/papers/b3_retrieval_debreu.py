"""Paper B: retrieval by attention through Debreu utilities."""

from symrel.report import Statement

STATEMENT = Statement(
    key="b3-retrieval-debreu",
    paper="B",
    reference="Retrieval theorem",
    title="attention retrieves by a preorder through its Debreu utility",
    paper_claim="Any retrieval mechanism defined by an abstract preorder (for each query x, select a "
    "<=_x-maximal key) can be approximated by attention through inner products of neural feature maps; "
    "the proof represents each preorder by a utility function (Debreu's representation theorem).",
    symrel_claim="For each instance: (1) on a complete finite preorder, the rank of the indifference class in "
    "the chain of classes is a utility u with x <= y iff u(x) <= u(y), checked on every pair (gap 1 between "
    "classes); (2) on a finite retrieval task (query and key feature points, one complete preorder per query, "
    "ties included), the symrel construction (utility matrix U, exact factorisation U = F G^T, query and key "
    "ReLU MLPs interpolating beta F and G exactly) gives scores <phi_q(x), phi_k(y)> = beta u_x(y), and "
    "hardmax attention returns exactly the <=_x-maximal keys, each with weight 1/|M|, for every query and "
    "every set of at most 3 keys. A control must be refuted: two keys' features swapped after the "
    "attention was built.",
    narrowing="Finite sets of rational feature points instead of second-countable spaces and continuous "
    "preorders, so Debreu's theorem reduces to ranking indifference classes; exact representation with "
    "hardmax instead of approximation; an incomplete preorder has no utility (symrel refuses it with an "
    "incomparable pair, see the last instance).",
)


def run():
    from symrel.preorders import Preorder, debreu_utility, richter_peleg_utility
    from symrel.preorders.generators import random_complete_preorder, random_preorder, random_retrieval_task
    from symrel.preorders.retrieval import build_retrieval_attention, prove_retrieval
    from symrel.preorders.task import RetrievalTask
    from symrel.report import Instance

    for n, seed in [(6, 1), (40, 2)]:
        P = random_complete_preorder(n, seed=seed)
        rep = debreu_utility(P)
        yield Instance(f"Debreu utility of a random complete preorder on {n} elements (seed {seed})", rep.proof,
                       facts={"classes": len(set(rep.utility.values()))})
    all_tied = Preorder.from_ranking([["a", "b", "c"]])
    yield Instance("Debreu utility when every element is tied", debreu_utility(all_tied).proof, facts={"classes": 1})

    def retrieval(name, task, factorisation="rank", **facts):
        att = build_retrieval_attention(task, factorisation=factorisation)
        proof = prove_retrieval(task, att, max_subset=3)
        return Instance(name, proof, facts={"queries": len(task.exact_queries), "keys": len(task.exact_keys),
                                            "feature dim": att.feature_dim, **facts})

    yield retrieval("retrieval: 3 queries, 5 keys in R^1, ties", random_retrieval_task(3, 5, dim=1, seed=3))
    yield retrieval("retrieval: 10 queries, 20 keys in R^2, ties", random_retrieval_task(10, 20, dim=2, seed=4))
    yield retrieval("retrieval with one-hot key features", random_retrieval_task(4, 6, dim=2, seed=5), "one-hot")
    tied = RetrievalTask({"a": [0], "b": [1], "c": [2]}, {"x": [0], "y": [5]},
                         {"x": Preorder.from_ranking([["a", "b", "c"]]), "y": Preorder.from_ranking(["a", "b", "c"])})
    yield retrieval("edge case: a query for which every key is tied", tied)

    task = random_retrieval_task(3, 6, dim=2, seed=6)
    att = build_retrieval_attention(task)
    q = task.query_names[0]
    u = task.utilities[q].utility
    low, high = min(task.key_names, key=lambda k: u[k]), max(task.key_names, key=lambda k: u[k])
    keys = dict(task.exact_keys)
    keys[low], keys[high] = keys[high], keys[low]
    swapped = RetrievalTask(keys, task.exact_queries, task.preorders)
    yield Instance(f"control: features of keys {low} and {high} swapped after building the attention",
                   prove_retrieval(swapped, att, max_subset=3), expect="refuted")

    incomplete = random_preorder(8, density=0.3, seed=7)
    pair = incomplete.incomparable_pair()
    rep = richter_peleg_utility(incomplete)
    yield Instance("an incomplete preorder has no utility; its Richter-Peleg utility preserves the strict part",
                   rep.proof, facts={"incomparable pair": " and ".join(map(str, pair)) if pair else "none"})


if __name__ == "__main__":
    from symrel.statements import standalone

    raise SystemExit(standalone(__file__))
