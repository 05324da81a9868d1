(* Theorems.v: the general theorem (Paper A, Theorems 3.1 and 3.2 for symrel's construction),
   proved for every maxout net, box and gating bounds that pass certify; and its ReLU form
   (Corollary 3.3), from relu_to_maxout_lemma (proved in Relu.v). *)
From Coq Require Import QArith List.
From Symrel Require Import Semantics Compiler Correctness Assembly Gating MaxBlock Relu.

Theorem compile_correct_proof : compile_correct.
Proof. exact (compile_correct_from_blocks gating_lemma_proof max_lemma_proof). Qed.

Theorem compile_relu_correct_from_relu_lemma : relu_to_maxout_lemma -> compile_relu_correct.
Proof. exact (compile_relu_correct_from_open max_lemma_proof). Qed.

(* Paper A, Corollary 3.3: ReLU nets through their maxout form, proved outright. *)
Theorem compile_relu_correct_proof : compile_relu_correct.
Proof. exact (compile_relu_correct_from_relu_lemma relu_to_maxout_lemma_proof). Qed.
