(* Layered.v: what a layered net computes and what a vnnlib-unsat claim about one means, in
   Coq, in Semantics.v's and VnnProp.v's terms. Definitions only; nothing is assumed. Read it
   beside docs/format.md ("Layered net").
   A layered net applies its operators in turn to the input vector:
   - LAffine D rows b: y_i = (sum over the pairs (j, w) of row i of w x_j + b_i) / D, the
     weights and biases integers over one common denominator D (the file's rationals times D);
   - LRelu: y_i = max(0, x_i);
   - LMax groups: y_i = the largest x_j over the indices j of group i.
   An index past the end of the vector reads 0 (the file refuses such indices). *)
From Coq Require Import QArith List.
From Symrel Require Import Semantics VnnProp.
Import ListNotations.
Open Scope Q_scope.

Inductive lop :=
  | LAffine (D : positive) (rows : list (list (N * Z))) (b : list Z)
  | LRelu
  | LMax (groups : list (list N)).

Record LNet := { ln_input : nat; ln_ops : list lop }.

(* entry j of v (0 past its end) *)
Definition at_ (v : vec) (j : N) : Q := nth (N.to_nat j) v 0.

(* sum over the pairs (j, w) of a row of w v_j *)
Definition row_dot (r : list (N * Z)) (v : vec) : Q :=
  fold_right (fun jw s => inject_Z (snd jw) * at_ v (fst jw) + s) 0 r.

Definition eval_lop (o : lop) (v : vec) : vec :=
  match o with
  | LAffine D rows b => map (fun rc => (row_dot (fst rc) v + inject_Z (snd rc)) * (1 # D)) (combine rows b)
  | LRelu => map relu v
  | LMax groups => map (fun g => max_list (map (at_ v) g)) groups
  end.

Definition eval_layered (N : LNet) (x : vec) : vec := fold_left (fun v o => eval_lop o v) (ln_ops N) x.

(* "unsat": no input x (of the property's dimension) with outputs y = N(x) meets both the
   input region and the unsafe condition *)
Definition layered_unsat (N : LNet) (P : Property) : Prop :=
  forall x, length x = p_inputs P ->
  ~ (dnf_holds (p_region P) x (eval_layered N x) /\ dnf_holds (p_unsafe P) x (eval_layered N x)).
