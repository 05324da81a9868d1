(* LayeredData.v: which layered net and which property an instance's data denote. Definitions
   only; nothing is assumed. A convolution's rows are one pattern at many column offsets, and a
   VNN-LIB atom has a few nonzero coefficients: the data say so, and these functions put the
   numbers in place.
   - Offsets are progressions (c, m, d): the m numbers c, c + d, ..., c + (m - 1) d.
   - A row pattern is a list of runs (c, [w_0; ...; w_(m-1)]): the weights w_k at the columns
     c + k. A block (pattern, offsets) is one row per offset: the pattern with every column
     moved by the offset. The rows of an affine op are its blocks' rows, in order.
   - A list of integers is a list of runs (count, value).
   - A group pattern is a list of runs (c, m): the indices c, ..., c + m - 1; a block
     (pattern, offsets) is one group per offset, moved by it.
   - A sparse vector (n, [(j, a); ...]) is the vector of length n with a at index j (the first
     pair of an index counts) and 0 elsewhere. *)
From Coq Require Import QArith List.
From Symrel Require Import Semantics VnnProp Layered.
Import ListNotations.
Open Scope Q_scope.

Fixpoint prog (c : N) (m : nat) (d : N) : list N :=
  match m with O => [] | S m' => c :: prog (c + d)%N m' d end.

Definition offsets_of (ps : list (N * N * N)) : list N :=
  flat_map (fun p => prog (fst (fst p)) (N.to_nat (snd (fst p))) (snd p)) ps.

Fixpoint run_pairs (c : N) (ws : list Z) : list (N * Z) :=
  match ws with [] => [] | w :: ws' => (c, w) :: run_pairs (N.succ c) ws' end.

Definition row_at (off : N) (pattern : list (N * list Z)) : list (N * Z) :=
  flat_map (fun r => run_pairs (fst r + off)%N (snd r)) pattern.

Definition rows_of (blocks : list (list (N * list Z) * list (N * N * N))) : list (list (N * Z)) :=
  flat_map (fun bl => map (fun off => row_at off (fst bl)) (offsets_of (snd bl))) blocks.

Definition ints_of (runs : list (N * Z)) : list Z :=
  flat_map (fun r => repeat (snd r) (N.to_nat (fst r))) runs.

Definition group_at (off : N) (pattern : list (N * N)) : list N :=
  flat_map (fun r => prog (fst r + off)%N (N.to_nat (snd r)) 1%N) pattern.

Definition groups_of (blocks : list (list (N * N) * list (N * N * N))) : list (list N) :=
  flat_map (fun bl => map (fun off => group_at off (fst bl)) (offsets_of (snd bl))) blocks.

Fixpoint lookup (k : N) (l : list (N * Q)) : Q :=
  match l with [] => 0 | (j, a) :: l' => if N.eqb j k then a else lookup k l' end.

Fixpoint svec_from (k : N) (n : nat) (l : list (N * Q)) : vec :=
  match n with O => [] | S n' => lookup k l :: svec_from (N.succ k) n' l end.

Definition svec (n : nat) (l : list (N * Q)) : vec := svec_from 0%N n l.

(* the atom xs . X + ys . Y <= r over n inputs and m outputs *)
Definition satom (n m : nat) (xs ys : list (N * Q)) (r : Q) : atom :=
  {| at_x := svec n xs; at_y := svec m ys; at_rhs := r |}.
