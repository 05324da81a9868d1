(* Sparse.v: a compact form of a Transformer's data, and its decoding into the Transformer
   of Semantics.v. A compiled Transformer's matrices are mostly zeros (ACAS Xu's 18 blocks
   of width 154: 0.9 million zeros in 3.2 MB); an instance writes only the nonzero entries
   and defines [transformer := decode table transformer_data]. Read it with Semantics.v: it says
   which Transformer the data denote. [dense_row_spec] states the decoding entry by entry. *)
From Coq Require Import QArith List Arith NArith Lia.
Import ListNotations.
From Symrel Require Import Semantics.
Open Scope Q_scope.

(* an entry of a sparse row: one value at a column, or a run: the len values
   table[k], .., table[k+len-1] at the columns col, .., col+len-1. The table is the net's
   own numbers (relu_values, maxout_values), then the instance's repeated values: a row of
   the Transformer that copies a row of the net is written as one run, not entry by entry *)
Inductive sentry := At (col : N) (a : Q) | Run (col : N) (k : N) (len : nat).
Definition srow := list sentry.
Definition svec := (nat * srow)%type.       (* a vector: its length, its nonzero entries *)
Definition smat := (nat * list srow)%type.  (* a matrix: its number of columns, its rows *)

(* the numbers of a net, in the order the runs count them: layer by layer, each row of W
   then b (ReLU); each piece's w then c, then the read-out's rows and bias (maxout) *)
Definition relu_values (R : ReluNet) : list Q := flat_map (fun l => concat (dn_W l) ++ dn_b l) (rn_layers R).
Definition maxout_values (N : MaxoutNet) : list Q :=
  flat_map (fun L => flat_map (fun u => flat_map (fun p => fst p ++ [snd p]) u) L) (mx_layers N)
  ++ match mx_readout N with None => [] | Some (W, b) => concat W ++ b end.

Definition slice (table : list Q) (k : N) (len : nat) : list Q := firstn len (skipn (N.to_nat k) table).

(* the (column, value) pairs of a sparse row *)
Definition pairs (table : list Q) (r : srow) : list (N * Q) :=
  flat_map (fun e => match e with
                     | At c a => [(c, a)]
                     | Run c k len => combine (map (fun i => (c + N.of_nat i)%N) (seq 0 len)) (slice table k len)
                     end) r.

(* entry k of a list of pairs: the value paired with column k (the first such pair), else 0;
   columns are binary numbers (N), which Coq reads and compares faster than nat *)
Fixpoint entry (r : list (N * Q)) (k : N) : Q :=
  match r with [] => 0 | (j, a) :: r' => if N.eqb j k then a else entry r' k end.

(* the entries k, k+1, .., k+m-1 (the column counted in binary, as the pairs are) *)
Fixpoint dense_from (ps : list (N * Q)) (k : N) (m : nat) : vec :=
  match m with O => [] | S m' => entry ps k :: dense_from ps (N.succ k) m' end.

Definition dense_row (table : list Q) (m : nat) (r : srow) : vec := dense_from (pairs table r) 0 m.
Definition dense_vec (table : list Q) (v : svec) : vec := dense_row table (fst v) (snd v).
Definition dense_mat (table : list Q) (M : smat) : mat := map (dense_row table (fst M)) (snd M).

Record sparse_head := { sWQ : smat; sWK : smat; sWV : smat; sWO : smat }.
Record sparse_ffn := { sW1 : smat; sb1 : svec; sW2 : smat; sb2 : svec }.
Record sparse_block := { sattn : option (list sparse_head); sff : option sparse_ffn }.
Record SparseTransformer := {
  s_rows : list nat; s_offsets : list svec; s_blocks : list sparse_block;
  s_out_token : nat; s_out_W : smat; s_out_b : svec }.

Definition decode_head (table : list Q) (h : sparse_head) : head :=
  {| WQ := dense_mat table (sWQ h); WK := dense_mat table (sWK h); WV := dense_mat table (sWV h);
     WO := dense_mat table (sWO h) |}.

Definition decode_ffn (table : list Q) (f : sparse_ffn) : ffn :=
  {| W1 := dense_mat table (sW1 f); b1 := dense_vec table (sb1 f); W2 := dense_mat table (sW2 f);
     b2 := dense_vec table (sb2 f) |}.

Definition decode_block (table : list Q) (b : sparse_block) : block :=
  {| attn := option_map (map (decode_head table)) (sattn b); ff := option_map (decode_ffn table) (sff b) |}.

Definition decode (table : list Q) (S : SparseTransformer) : Transformer :=
  {| t_rows := s_rows S; t_offsets := map (dense_vec table) (s_offsets S);
     t_blocks := map (decode_block table) (s_blocks S); t_out_token := s_out_token S;
     t_out_W := dense_mat table (s_out_W S); t_out_b := dense_vec table (s_out_b S) |}.

(* what a decoded row is: m entries, entry k the value paired with k, or 0 *)
Lemma dense_from_spec : forall m ps k0, length (dense_from ps k0 m) = m /\
  forall k, (k < m)%nat -> nth k (dense_from ps k0 m) 0 = entry ps (k0 + N.of_nat k).
Proof.
  induction m as [|m IH]; intros ps k0; simpl.
  - split; [reflexivity|]. intros k Hk. lia.
  - split; [f_equal; apply IH|]. intros k Hk.
    destruct k as [|k]; [rewrite N.add_0_r; reflexivity|].
    rewrite (proj2 (IH ps (N.succ k0)) k) by lia. f_equal. rewrite Nat2N.inj_succ. lia.
Qed.

Lemma dense_row_spec : forall table m r, length (dense_row table m r) = m /\
  forall k, (k < m)%nat -> nth k (dense_row table m r) 0 = entry (pairs table r) (N.of_nat k).
Proof. intros table m r. exact (dense_from_spec m (pairs table r) 0). Qed.

Lemma entry_spec : forall r k, (forall a, ~ In (k, a) r) -> entry r k = 0.
Proof.
  induction r as [|[j a] r IH]; intros k H; simpl; [reflexivity|].
  destruct (N.eqb_spec j k) as [->|]; [exfalso; apply (H a); left; reflexivity|].
  apply IH. intros b Hb. apply (H b). right. exact Hb.
Qed.
