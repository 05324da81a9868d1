(* VnnProp.v: what a VNN-LIB property means, in Coq, in Semantics.v's terms. Definitions only;
   nothing is assumed. Read it beside docs/format.md ("vnnlib-unsat").
   An atom  a . X + c . Y <= r  is linear in the inputs X and the outputs Y; both sides of a
   property are disjunctions (lists) of conjunctions (lists) of atoms. *)
From Coq Require Import QArith List.
From Symrel Require Import Semantics.
Import ListNotations.
Open Scope Q_scope.

Record atom := { at_x : vec; at_y : vec; at_rhs : Q }.

Definition atom_holds (a : atom) (x y : vec) : Prop := dot (at_x a) x + dot (at_y a) y <= at_rhs a.
Definition conj_holds (C : list atom) (x y : vec) : Prop := Forall (fun a => atom_holds a x y) C.
Definition dnf_holds (D : list (list atom)) (x y : vec) : Prop := Exists (fun C => conj_holds C x y) D.

(* p_inputs inputs; the input region and the unsafe condition, both in disjunctive normal form *)
Record Property := { p_inputs : nat; p_region : list (list atom); p_unsafe : list (list atom) }.

(* "unsat": no input x (of the property's dimension) with outputs y = N(x) meets both the
   input region and the unsafe condition *)
Definition vnnlib_unsat (N : ReluNet) (P : Property) : Prop :=
  forall x, length x = p_inputs P ->
  ~ (dnf_holds (p_region P) x (eval_relu N x) /\ dnf_holds (p_unsafe P) x (eval_relu N x)).
