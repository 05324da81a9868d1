(* Correctness.v: the theorems proved once for every net (Paper A, Thms 3.1 and 3.2 for symrel's
   construction, and Cor 3.3 for ReLU nets), stated in Semantics.v's terms and Compiler.v's
   compile / certify. *)
From Coq Require Import QArith List.
Import ListNotations.
From Symrel Require Import Semantics Compiler Bounds.
Open Scope Q_scope.

(* For every maxout net N, box D and gating bounds Bs that pass the check (well-formed net,
   |l_ij| <= B_l on layer l's input box), the compiled Transformer equals N on D. *)
Definition compile_correct : Prop :=
  forall N D Bs, certify N D Bs = true ->
  forall x, in_box D x -> agree (eval_transformer (compile N Bs) x) (eval_maxout N x).

(* ReLU nets through their maxout form. *)
Definition compile_relu_correct : Prop :=
  forall R D Bs, certify (relu_to_maxout R) D Bs = true ->
  forall x, in_box D x -> agree (eval_transformer (compile (relu_to_maxout R) Bs) x) (eval_relu R x).
