(* Sparse.v: a compact form of a Transformer's data, and its decoding into the Transformer
   of Semantics.v. A compiled Transformer's matrices are mostly zeros (ACAS Xu's 18 blocks
   of width 154: 0.9 million zeros in 3.2 MB); an instance writes only the nonzero entries
   and defines [transformer := decode transformer_data]. Read it with Semantics.v: it says
   which Transformer the data denote. [dense_row_spec] states the decoding entry by entry. *)
From Coq Require Import QArith List Arith NArith Lia.
Import ListNotations.
From Symrel Require Import Semantics.
Open Scope Q_scope.

Definition srow := list (N * Q).            (* the nonzero entries of a row: (column, value) *)
Definition svec := (nat * srow)%type.       (* a vector: its length, its nonzero entries *)
Definition smat := (nat * list srow)%type.  (* a matrix: its number of columns, its rows *)

(* entry k of a sparse row: the value paired with column k (the first such pair), else 0;
   columns are binary numbers (N), which Coq reads and compares faster than nat *)
Fixpoint entry (r : srow) (k : N) : Q :=
  match r with [] => 0 | (j, a) :: r' => if N.eqb j k then a else entry r' k end.

Definition dense_row (m : nat) (r : srow) : vec := map (fun k => entry r (N.of_nat k)) (seq 0 m).
Definition dense_vec (v : svec) : vec := dense_row (fst v) (snd v).
Definition dense_mat (M : smat) : mat := map (dense_row (fst M)) (snd M).

Record sparse_head := { sWQ : smat; sWK : smat; sWV : smat; sWO : smat }.
Record sparse_ffn := { sW1 : smat; sb1 : svec; sW2 : smat; sb2 : svec }.
Record sparse_block := { sattn : option (list sparse_head); sff : option sparse_ffn }.
Record SparseTransformer := {
  s_rows : list nat; s_offsets : list svec; s_blocks : list sparse_block;
  s_out_token : nat; s_out_W : smat; s_out_b : svec }.

Definition decode_head (h : sparse_head) : head :=
  {| WQ := dense_mat (sWQ h); WK := dense_mat (sWK h); WV := dense_mat (sWV h); WO := dense_mat (sWO h) |}.

Definition decode_ffn (f : sparse_ffn) : ffn :=
  {| W1 := dense_mat (sW1 f); b1 := dense_vec (sb1 f); W2 := dense_mat (sW2 f); b2 := dense_vec (sb2 f) |}.

Definition decode_block (b : sparse_block) : block :=
  {| attn := option_map (map decode_head) (sattn b); ff := option_map decode_ffn (sff b) |}.

Definition decode (S : SparseTransformer) : Transformer :=
  {| t_rows := s_rows S; t_offsets := map dense_vec (s_offsets S); t_blocks := map decode_block (s_blocks S);
     t_out_token := s_out_token S; t_out_W := dense_mat (s_out_W S); t_out_b := dense_vec (s_out_b S) |}.

(* what a decoded row is: m entries, entry k the value paired with k, or 0 *)
Lemma dense_row_spec : forall m r, length (dense_row m r) = m /\
  forall k, (k < m)%nat -> nth k (dense_row m r) 0 = entry r (N.of_nat k).
Proof.
  intros m r. unfold dense_row. split; [rewrite map_length, seq_length; reflexivity|].
  intros k Hk. rewrite nth_indep with (d' := (fun k => entry r (N.of_nat k)) O)
    by (rewrite map_length, seq_length; exact Hk).
  rewrite (map_nth (fun k => entry r (N.of_nat k))), seq_nth by exact Hk. reflexivity.
Qed.

Lemma entry_spec : forall r k, (forall a, ~ In (k, a) r) -> entry r k = 0.
Proof.
  induction r as [|[j a] r IH]; intros k H; simpl; [reflexivity|].
  destruct (N.eqb_spec j k) as [->|]; [exfalso; apply (H a); left; reflexivity|].
  apply IH. intros b Hb. apply (H b). right. exact Hb.
Qed.
