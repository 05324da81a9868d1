"""The checker's softmax enclosure (checking.softmax_enclosure) is its own code, yet gives
the end points the audit records (models.sequence_softmax, fed the checker's exp bounds)
exactly: both compute one definition."""

import random

from symrel.checking.exp_bounds import exp_bounds
from symrel.checking.softmax_enclosure import softmax_enclosure
from symrel.exact import Q
from symrel.models import all_sequences
from symrel.models.sequence import SequenceAttention, SequenceHead, SequenceLayer, SequenceMLP, SequenceTransformer
from symrel.models.sequence_softmax import enclose


def _random_model(rnd, causal, dyadic):
    m, k = 4, 2
    den = (lambda: rnd.choice([1, 2, 4, 8])) if dyadic else (lambda: rnd.choice([1, 3, 5, 7]))

    def mat(r, c):
        return [[Q(rnd.randint(-6, 6), den()) for _ in range(c)] for _ in range(r)]

    head = SequenceHead(mat(k, m), mat(k, m), mat(k, m), mat(m, k), bQ=mat(1, k)[0], bV=mat(1, k)[0], width=m)
    att = SequenceAttention([head, SequenceHead(mat(k, m), mat(k, m), mat(k, m), mat(m, k), width=m)],
                            bO=mat(1, m)[0], scale=Q(1, 3), width=m)
    mlp = SequenceMLP(mat(3, m), mat(1, 3)[0], mat(m, 3), mat(1, m)[0], width=m)
    return SequenceTransformer(tokens=["BOS", "a", "b"], bos="BOS", token_embedding=mat(3, m),
                               position_embedding=mat(4, m), layers=[SequenceLayer(att, mlp), SequenceLayer(att, None)],
                               unembedding=mat(2, m), output="categorical", output_labels=["x", "y"], causal=causal)


def test_the_checker_recomputes_the_recorded_end_points():
    rnd = random.Random(5)
    for causal in (False, True):
        for dyadic in (True, False):
            model = _random_model(rnd, causal, dyadic)
            for seq in all_sequences(["a", "b"], 3):
                for factor in (1, Q(5, 2)):
                    ours = softmax_enclosure(model, list(seq), factor=factor)
                    theirs = enclose(model, list(seq), exp_bounds, factor=factor)
                    assert ours.to_json() == theirs.to_json(), (causal, dyadic, seq, factor)
