(* Relu.v: a ReLU net and its maxout form compute the same function (Paper A, Cor 3.3):
   relu_to_maxout_lemma, hence compile_relu_correct outright. The two facts behind it:
   compose (the product of list matrices, with Qred) evaluates as the composition of the
   two affine maps, and the rank-2 unit max(0.v + 0, z) is ReLU(z). *)
From Coq Require Import QArith Lqa List Bool Arith Lia.
Import ListNotations.
From Symrel Require Import Semantics Compiler Correctness Linalg.
Open Scope Q_scope.

(* ---- the dense semantics respects agree *)
Lemma vadd_proper : forall a a' b b', agree a a' -> agree b b' -> agree (vadd a b) (vadd a' b').
Proof.
  intros a a' b b' Ha. revert b b'.
  induction Ha as [|x x' a a' Hx Ha IH]; intros b b' Hb; simpl; [constructor|].
  destruct Hb as [|y y' b b' Hy Hb]; simpl; constructor; [rewrite Hx, Hy; reflexivity|exact (IH b b' Hb)].
Qed.

Lemma mat_vec_proper : forall M v v', agree v v' -> agree (mat_vec M v) (mat_vec M v').
Proof.
  intros M v v' H. induction M as [|r M IH]; simpl; constructor; [apply dot_proper_r; exact H|exact IH].
Qed.

Lemma map_relu_proper : forall a b, agree a b -> agree (map relu a) (map relu b).
Proof.
  intros a b H. induction H; simpl; constructor; [apply relu_proper; assumption|assumption].
Qed.

Lemma eval_dense_proper : forall l v v', agree v v' -> agree (eval_dense l v) (eval_dense l v').
Proof.
  intros l v v' H. unfold eval_dense, affine.
  assert (A : agree (vadd (mat_vec (dn_W l) v) (dn_b l)) (vadd (mat_vec (dn_W l) v') (dn_b l)))
    by (apply vadd_proper; [apply mat_vec_proper; exact H|apply agree_refl]).
  destruct (dn_relu l); [apply map_relu_proper|]; exact A.
Qed.

Lemma fold_dense_proper : forall ls v v', agree v v' ->
  agree (fold_left (fun v l => eval_dense l v) ls v) (fold_left (fun v l => eval_dense l v) ls v').
Proof.
  induction ls as [|l ls IH]; intros v v' H; simpl; [exact H|]. apply IH, eval_dense_proper, H.
Qed.

(* ---- sums: constants and the exchange of two sums *)
Lemma sumq_mult_l : forall n g a, a * sumq n g == sumq n (fun p => a * g p).
Proof. induction n as [|n IH]; intros g a; simpl; [ring|]. rewrite <- IH. ring. Qed.

Lemma sumq_mult_r : forall n g a, sumq n g * a == sumq n (fun p => g p * a).
Proof. induction n as [|n IH]; intros g a; simpl; [ring|]. rewrite <- IH. ring. Qed.

Lemma sumq_swap : forall n m (f : nat -> nat -> Q),
  sumq n (fun i => sumq m (fun j => f i j)) == sumq m (fun j => sumq n (fun i => f i j)).
Proof.
  induction n as [|n IH]; intros m f; simpl.
  - symmetry. apply sumq_zero. intros; reflexivity.
  - rewrite (IH m (fun i j => f (S i) j)).
    rewrite <- sumq_plus. apply sumq_ext. intros; reflexivity.
Qed.

Ltac dims := unfold mat, vec in *; lia.

(* ---- compose W b W' b' is the affine map v -> W (W' v + b') + b *)
Lemma nthq_col : forall (W' : mat) k j, (j < length W')%nat ->
  nthq (map (fun r => nth k r 0) W') j = nthq (nth j W' []) k.
Proof.
  intros W' k j Hj. unfold nthq. rewrite nth_indep with (d' := (fun r : vec => nth k r 0) []) by (rewrite map_length; exact Hj).
  exact (map_nth (fun r : vec => nth k r 0) W' [] j).
Qed.

Lemma compose_row : forall row (W' : mat) b' c v,
  length row = length W' -> length b' = length W' -> Forall (fun r => length r = length v) W' -> W' <> [] ->
  dot (map (fun k => Qred (dot row (map (fun r => nth k r 0) W'))) (seq 0 (length (hd [] W')))) v
    + Qred (dot row b' + c)
  == dot row (vadd (mat_vec W' v) b') + c.
Proof.
  intros row W' b' c v Hr Hb HW Hne. unfold mat, vec in *.
  assert (HK : length (hd [] W') = length v) by (destruct W' as [|r W']; [congruence|inversion HW; assumption]).
  rewrite HK. rewrite Qred_correct.
  set (m := length W') in *. set (K := length v) in *.
  assert (Em : m = length W') by reflexivity. assert (EK : K = length v) by reflexivity.
  clearbody m K.
  rewrite (dot_sumq (map _ (seq 0 K)) v) by (rewrite map_length, seq_length; dims).
  rewrite map_length, seq_length.
  rewrite (dot_sumq row (vadd _ _)) by (rewrite length_vadd; unfold mat_vec; rewrite map_length; dims).
  rewrite (dot_sumq row b') by dims. rewrite Hr.
  (* the left: sum_k (sum_j row_j W'_jk) v_k *)
  rewrite (sumq_ext K _ (fun k => sumq m (fun j => nthq row j * nthq (nth j W' []) k * nthq v k))).
  2:{ intros k Hk. change (map ?f (seq 0 K)) with (vec_of K f). rewrite nth_vec_of by exact Hk. cbv beta.
      rewrite Qred_correct. rewrite (dot_sumq row (map (fun r : list Q => nth k r 0) W')) by (rewrite map_length; dims). rewrite Hr, sumq_mult_r.
      apply sumq_ext. intros j Hj. rewrite nthq_col by dims. reflexivity. }
  rewrite (sumq_ext m (fun p => nthq row p * nthq (vadd (mat_vec W' v) b') p)
                   (fun j => sumq K (fun k => nthq row j * nthq (nth j W' []) k * nthq v k) + nthq row j * nthq b' j)).
  2:{ intros j Hj. rewrite nth_vadd by (unfold mat_vec; rewrite ?map_length; dims).
      unfold mat_vec. rewrite nth_map_q by dims.
      assert (Hl : length (nth j W' []) = K) by (rewrite Forall_forall in HW; apply HW, nth_In; dims).
      rewrite (dot_sumq (nth j W' []) v) by dims. rewrite Hl.
      rewrite Qmult_plus_distr_r, sumq_mult_l. apply Qplus_comp; [|reflexivity].
      apply sumq_ext. intros k _. ring. }
  rewrite sumq_plus. rewrite sumq_swap. ring.
Qed.

Lemma compose_correct : forall W b W' b' v,
  length b = length W -> Forall (fun r => length r = length W') W ->
  length b' = length W' -> Forall (fun r => length r = length v) W' -> W' <> [] ->
  agree (affine (fst (compose W b W' b')) (snd (compose W b W' b')) v) (affine W b (affine W' b' v)).
Proof.
  induction W as [|row W IH]; intros b W' b' v Hb HW Hb' HW' Hne; destruct b as [|c b]; simpl in Hb; try lia.
  - constructor.
  - inversion HW as [|? ? Hrow HW0]; subst. unfold compose, affine, mat_vec. simpl. constructor.
    + apply compose_row; assumption.
    + exact (IH b W' b' v ltac:(lia) HW0 Hb' HW' Hne).
Qed.

(* ---- the maxout layers that relu_layers writes *)
Lemma dot_repeat_zero : forall n v, dot (repeat 0 n) v == 0.
Proof. induction n as [|n IH]; intros [|y v]; simpl; try reflexivity. rewrite IH. ring. Qed.

Lemma Qle_bool_false : forall x y, Qle_bool x y = false -> y < x.
Proof.
  intros x y E. apply Qnot_le_lt. intro C. apply Qle_bool_iff in C. congruence.
Qed.

Lemma qmax_zero_relu : forall a z, a == 0 -> qmax a z == relu z.
Proof.
  intros a z Ha. unfold qmax, relu.
  destruct (Qle_bool a z) eqn:E1, (Qle_bool z 0) eqn:E2;
    [apply Qle_bool_iff in E1; apply Qle_bool_iff in E2; lra | reflexivity | exact Ha
    | apply Qle_bool_false in E1; apply Qle_bool_false in E2; lra].
Qed.

Lemma relu_layer_eval : forall W b n v,
  agree (eval_layer (map (fun wc => [(repeat 0 n, 0); wc]) (combine W b)) v) (map relu (affine W b v)).
Proof.
  induction W as [|w W IH]; intros [|c b] n v; simpl; try constructor.
  - unfold eval_unit, eval_piece. simpl. apply qmax_zero_relu. rewrite dot_repeat_zero. ring.
  - exact (IH b n v).
Qed.

Lemma affine_layer_eval : forall W b v,
  agree (eval_layer (map (fun wc => [wc]) (combine W b)) v) (affine W b v).
Proof.
  induction W as [|w W IH]; intros [|c b] v; simpl; try constructor; [reflexivity|exact (IH b v)].
Qed.

(* ---- relu_layers, the maxout form layer by layer: a pending affine map (W, b) is what an
   activation-free layer leaves to fold into the next layer (or into the read-out) *)
Definition pend_eval (pending : option (mat * vec)) (v : vec) : vec :=
  match pending with None => v | Some (W, b) => affine W b v end.
Definition pend_ok (k : nat) (pending : option (mat * vec)) : Prop :=
  match pending with
  | None => True
  | Some (W, b) => W <> [] /\ length b = length W /\ Forall (fun r => length r = k) W
  end.
Definition pend_width (k : nat) (pending : option (mat * vec)) : nat :=
  match pending with None => k | Some (W, _) => length W end.

Lemma dense_wf_cons : forall n l ls, dense_wf n (l :: ls) = true ->
  dn_W l <> [] /\ length (dn_b l) = length (dn_W l) /\ Forall (fun r => length r = n) (dn_W l)
  /\ dense_wf (length (dn_W l)) ls = true.
Proof.
  intros n l ls H. simpl in H. apply andb_prop in H as [H H4]. apply andb_prop in H as [H H3].
  apply andb_prop in H as [H1 H2]. apply negb_true_iff, Nat.eqb_neq in H1. apply Nat.eqb_eq in H2.
  repeat split; auto.
  - intro E. rewrite E in H1. simpl in H1. lia.
  - apply Forall_forall. intros r Hr. rewrite forallb_forall in H3. apply Nat.eqb_eq, H3, Hr.
Qed.

Lemma length_eval_layer : forall L v, length (eval_layer L v) = length L.
Proof. intros. unfold eval_layer. apply map_length. Qed.

Lemma relu_layers_correct : forall ls n pending v Ls r,
  pend_ok (length v) pending -> dense_wf (pend_width (length v) pending) ls = true ->
  relu_layers n pending ls = (Ls, r) ->
  agree (eval_readout r (fold_left (fun v L => eval_layer L v) Ls v))
        (fold_left (fun v l => eval_dense l v) ls (pend_eval pending v)).
Proof.
  induction ls as [|l ls IH]; intros n pending v Ls r Hp Hwf E.
  - simpl in E. injection E as <- <-. destruct pending as [[W b]|]; apply agree_refl.
  - simpl in E. destruct pending as [[W' b']|].
    + (* a pending affine map folds into this layer: compose *)
      destruct Hp as (Hne & Hb' & HW'). simpl in Hwf. apply dense_wf_cons in Hwf as (Hl & Hlb & HlW & Hwf).
      destruct (compose (dn_W l) (dn_b l) W' b') as [W b] eqn:EC.
      assert (HC := compose_correct (dn_W l) (dn_b l) W' b' v Hlb HlW Hb' HW' Hne). rewrite EC in HC.
      simpl in HC.
      assert (LW : length W = length (dn_W l)) by (unfold compose in EC; injection EC as <- _; apply map_length).
      assert (Lb : length b = length W).
      { unfold compose in EC; injection EC as <- <-. rewrite map_length, length_vadd.
        unfold mat_vec. rewrite map_length. lia. }
      simpl. unfold eval_dense at 2. destruct (dn_relu l).
      * destruct (relu_layers (length W) None ls) as [Ls0 r0] eqn:E0. injection E as <- <-. simpl.
        eapply agree_trans.
        { eapply (IH (length W) None _ Ls0 r0 I); [|exact E0].
          simpl. rewrite length_eval_layer, map_length, combine_length, Lb, Nat.min_id, LW. exact Hwf. }
        apply fold_dense_proper. eapply agree_trans; [apply relu_layer_eval|]. apply map_relu_proper, HC.
      * eapply agree_trans.
        { apply (IH n (Some (W, b)) v Ls r); [|simpl; rewrite LW; exact Hwf|exact E].
          split; [intro N; rewrite N in LW; simpl in LW; destruct (dn_W l); [congruence|discriminate]|].
          split; [exact Lb|]. unfold compose in EC. injection EC as <- _. apply Forall_forall.
          intros row Hrow. apply in_map_iff in Hrow as (x & <- & _).
          rewrite map_length, seq_length. destruct W' as [|r0 W']; [congruence|]. inversion HW'. assumption. }
        apply fold_dense_proper. exact HC.
    + simpl in Hwf. apply dense_wf_cons in Hwf as (Hl & Hlb & HlW & Hwf). simpl.
      unfold eval_dense at 2. destruct (dn_relu l).
      * destruct (relu_layers (length (dn_W l)) None ls) as [Ls0 r0] eqn:E0. injection E as <- <-. simpl.
        eapply agree_trans.
        { eapply (IH (length (dn_W l)) None _ Ls0 r0 I); [|exact E0].
          simpl. rewrite length_eval_layer, map_length, combine_length, Hlb, Nat.min_id. exact Hwf. }
        apply fold_dense_proper. apply relu_layer_eval.
      * apply (IH n (Some (dn_W l, dn_b l)) v Ls r); [|exact Hwf|exact E]. simpl. auto.
Qed.

Theorem relu_to_maxout_lemma_proof : relu_to_maxout_lemma.
Proof.
  intros R x Hwf Hx. unfold relu_wf in Hwf. apply andb_prop in Hwf as [_ Hwf].
  unfold eval_relu, relu_to_maxout.
  destruct (relu_layers (rn_input R) None (rn_layers R)) as [Ls r] eqn:E.
  assert (G := relu_layers_correct (rn_layers R) (rn_input R) None x Ls r I
                 ltac:(simpl; rewrite Hx; exact Hwf) E).
  simpl in G. destruct Ls as [|L Ls]; [destruct r as [[W b]|]|]; unfold eval_maxout; simpl in *.
  - eapply agree_trans; [apply affine_layer_eval|exact G].
  - exact G.
  - exact G.
Qed.
