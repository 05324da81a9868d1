(* Embed.v: the embedding and the read-out proved (embed_lemma, readout_lemma of Correctness.v). *)
From Coq Require Import QArith Lqa List Bool Arith Lia.
Import ListNotations.
From Symrel Require Import Semantics Compiler Bounds Correctness Linalg Move.
Open Scope Q_scope.

Lemma length_add_at : forall r a v, length (add_at r a v) = length v.
Proof. induction r as [|r IH]; intros a [|y v]; simpl; auto. Qed.

Lemma nth_add_at : forall r a v p, (r < length v)%nat ->
  nthq (add_at r a v) p == nthq v p + (if p =? r then a else 0).
Proof.
  induction r as [|r IH]; intros a [|y v] p Hr; simpl in Hr; try lia; unfold nthq in *.
  - destruct p; simpl; [reflexivity|ring].
  - destruct p as [|p]; simpl; [ring|]. apply IH. lia.
Qed.

Lemma embed_fold : forall x k w, (k + length x <= length w)%nat ->
  length (fold_left (fun v ra => add_at (fst ra) (snd ra) v) (combine (seq k (length x)) x) w) = length w /\
  forall p, nthq (fold_left (fun v ra => add_at (fst ra) (snd ra) v) (combine (seq k (length x)) x) w) p
            == nthq w p + (if (k <=? p) && (p <? k + length x) then nth (p - k) x 0 else 0).
Proof.
  induction x as [|a x IH]; intros k w Hl; simpl.
  - split; [reflexivity|]. intros p. destruct ((k <=? p) && (p <? k + 0)); [destruct (p - k)%nat|]; simpl; ring.
  - simpl in Hl. destruct (IH (S k) (add_at k a w)) as [L N]; [rewrite length_add_at; lia|].
    split; [rewrite L, length_add_at; reflexivity|]. intros p. rewrite N, nth_add_at by lia.
    destruct (Nat.eqb_spec p k), (Nat.leb_spec k p), (Nat.ltb_spec p (k + S (length x))),
             (Nat.leb_spec (S k) p), (Nat.ltb_spec p (S k + length x)); subst; cbn [andb]; try lia;
      try ring.
    + replace (k - k)%nat with O by lia. simpl. ring.
    + replace (p - k)%nat with (S (p - S k)) by lia. simpl. ring.
Qed.

Lemma layout_dx_input : forall N, (mx_input N <= dx (layout_of N))%nat.
Proof. intros N. unfold layout_of. simpl. lia. Qed.

Theorem embed_lemma_proof : embed_lemma.
Proof.
  intros N Bs x Hx. unfold embed, compile, stream, same_state. cbn [t_offsets t_rows].
  rewrite map_map. set (Lo := layout_of N).
  assert (Hd : (length x <= dx Lo)%nat) by (rewrite Hx; apply layout_dx_input).
  apply Forall2_map_map with (R := eq) (f := fun t => t).
  { clear. induction (seq 0 (ntok Lo)); simpl; constructor; auto. }
  intros z t Hin Ht. apply in_seq in Hin. cbv beta in Ht. subst z. rewrite <- Hx.
  destruct (embed_fold x 0 (vec_of (width Lo) (fun p => ind ((p =? slotP Lo t) || (p =? slotC Lo)) 1)))
    as [L N']; [rewrite length_vec_of; unfold width; lia|].
  apply agree_nth; [rewrite L, column_colf, !length_vec_of; reflexivity|]. intros p Hp. rewrite L, length_vec_of in Hp.
  rewrite N'. rewrite column_colf, !nth_vec_of by exact Hp. unfold colf, ind, slotP, slotC, zero.
  destruct (Nat.ltb_spec p (dx Lo)).
  - destruct (Nat.eqb_spec p (dx Lo + t)), (Nat.eqb_spec p (dx Lo + ntok Lo)); try lia. cbn [orb].
    destruct (Nat.ltb_spec p (0 + length x)); cbn [andb Nat.leb].
    + rewrite Nat.sub_0_r. ring.
    + rewrite nth_overflow by lia. ring.
  - destruct (Nat.ltb_spec p (0 + length x)); [lia|]. cbn [andb Nat.leb].
    destruct (Nat.ltb_spec p (dx Lo + ntok Lo)).
    + destruct (Nat.eqb_spec p (dx Lo + ntok Lo)); [lia|]. destruct (p =? dx Lo + t); simpl; ring.
    + destruct (Nat.eqb_spec p (dx Lo + ntok Lo)); [rewrite orb_true_r; ring|].
      rewrite orb_false_r. destruct (Nat.eqb_spec p (dx Lo + t)); [lia|].
      destruct (p <? _)%nat; ring.
Qed.

Lemma sumq_prefix : forall n k g, (k <= n)%nat -> (forall p, (k <= p < n)%nat -> g p == 0) -> sumq n g == sumq k g.
Proof.
  induction n as [|n IH]; intros k g Hk H.
  - replace k with O by lia. reflexivity.
  - destruct k as [|k]; simpl.
    + rewrite (H O) by lia. rewrite sumq_zero; [ring|]. intros p Hp. apply H. lia.
    + rewrite (IH k (fun p => g (S p))); [reflexivity|lia|]. intros p Hp. apply H. lia.
Qed.

Lemma last_width_le : forall Ls a, (fold_left (fun _ L => length L) Ls a <= Nat.max a (list_max (map (@length munit) Ls)))%nat.
Proof.
  induction Ls as [|L Ls IH]; intros a; simpl; [lia|].
  specialize (IH (length L)). unfold list_max in *. simpl. lia.
Qed.

Lemma layout_dx_last : forall N, (last_width N <= dx (layout_of N))%nat.
Proof. intros N. unfold last_width, layout_of. simpl. apply last_width_le. Qed.

Lemma place_dot : forall Lo row h z0, (length row <= dx Lo)%nat -> length h = length row ->
  agree z0 (column Lo h zero zero O) ->
  dot (vec_of (width Lo) (fun p => if p <? dx Lo then nth p row 0 else 0)) z0 == dot row h.
Proof.
  intros Lo row h z0 Hr Hh H. rewrite column_colf in H. rewrite (dot_row_col _ _ z0 _ H).
  rewrite dot_sumq by lia.
  rewrite (sumq_prefix (width Lo) (length row)); [|unfold width; lia|].
  - apply sumq_ext. intros p Hp. rewrite colf_X by lia. destruct (Nat.ltb_spec p (dx Lo)); [|lia]. reflexivity.
  - intros p Hp. destruct (Nat.ltb_spec p (dx Lo)); [|ring]. rewrite nth_overflow by lia. ring.
Qed.

Lemma nth_map_any : forall A B (f : A -> B) l k da db, (k < length l)%nat -> nth k (map f l) db = f (nth k l da).
Proof. intros. rewrite nth_indep with (d' := f da) by (rewrite map_length; exact H). apply map_nth. Qed.

Lemma nth_place : forall (f : vec -> vec) (W : mat) k, (k < length W)%nat -> nth k (map f W) [] = f (nth k W []).
Proof. intros. apply nth_map_any. exact H. Qed.

Lemma nth_unit : forall m q k, (k < q)%nat ->
  nth k (map (fun k0 : nat => unit_vec m k0) (seq 0 q)) [] = unit_vec m k.
Proof.
  intros m q k H. change (unit_vec m k) with ((fun k0 => unit_vec m k0) (0 + k)%nat).
  pose proof (@List.seq_nth q O k O H) as E. rewrite <- E. apply nth_map_any. rewrite seq_length. exact H.
Qed.

Theorem readout_lemma_proof : readout_lemma.
Proof.
  intros N Bs h Z Hh Hok HZ. set (Lo := layout_of N) in *.
  assert (Hq : (last_width N <= dx Lo)%nat) by apply layout_dx_last.
  unfold same_state, stream in HZ. unfold compile. fold Lo. cbn [t_out_W t_out_b t_out_token].
  assert (HT : ntok Lo = S (pred (ntok Lo))) by (unfold Lo, layout_of; simpl; reflexivity).
  rewrite HT in HZ. cbn [seq map] in HZ. inversion HZ as [|z0 c0 Z' cs Hz0 HZ' E1 E2]. subst. cbn [nth].
  destruct (mx_readout N) as [[W b]|] eqn:ER; cbn [eval_readout]; unfold affine, mat_vec.
  - simpl in Hok. apply andb_true_iff in Hok as [HWb HW]. apply Nat.eqb_eq in HWb.
    rewrite forallb_forall in HW.
    apply agree_nth; [rewrite !length_vadd, !map_length; reflexivity|].
    intros k Hk. rewrite length_vadd, !map_length in Hk.
    rewrite !nth_vadd by (rewrite ?map_length; lia). rewrite !nth_map_q by (rewrite ?map_length; lia).
    assert (Hrow : length (nth k W []) = last_width N) by (apply Nat.eqb_eq, HW, nth_In; lia).
    rewrite nth_place by lia.
    rewrite (place_dot Lo (nth k W []) h z0) by (lia || exact Hz0). reflexivity.
  - apply agree_nth; [rewrite length_vadd, !map_length, seq_length; lia|].
    intros k Hk. rewrite length_vadd, !map_length, seq_length in Hk.
    rewrite nth_vadd by (rewrite ?map_length, ?seq_length; lia).
    rewrite nth_map_q by (rewrite map_length, seq_length; lia).
    assert (E0 : nthq (map (fun _ : nat => 0) (seq 0 (last_width N))) k = 0)
      by (unfold nthq; rewrite nth_map_seq; destruct (k <? _)%nat; reflexivity).
    rewrite E0, nth_unit by lia. unfold unit_vec.
    rewrite column_colf in Hz0. rewrite (dz_single (width Lo) k 1 z0 _ ltac:(unfold width; lia) Hz0).
    rewrite colf_X by lia. unfold nthq. ring.
Qed.
