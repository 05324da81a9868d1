(* VnnSound.v: the soundness of the vnnlib-unsat checker (VnnCheck.v), proved once:
     check_sound : forall N P steps, check N P steps = true -> vnnlib_unsat N P.
   Nothing is assumed. *)
From Coq Require Import QArith Qreduction List Bool Lia Lqa.
From Symrel Require Import Semantics VnnProp VnnCheck.
Import ListNotations.
Open Scope Q_scope.
Local Arguments Qred : simpl never.
Local Arguments comb_acc : simpl never.
Local Arguments qadd : simpl never.

(* ---- booleans and rationals ---- *)
Lemma Qle_bool_true : forall a b, Qle_bool a b = true -> a <= b.
Proof. intros a b H. apply Qle_bool_iff. exact H. Qed.

Lemma Qlt_bool_true : forall a b, Qlt_bool a b = true -> a < b.
Proof.
  unfold Qlt_bool. intros a b H. apply negb_true_iff in H. apply Qnot_le_lt. intro H'.
  apply Qle_bool_iff in H'. congruence.
Qed.

Lemma Qeq_bool_true : forall a b, Qeq_bool a b = true -> a == b.
Proof. intros a b H. apply Qeq_bool_iff. exact H. Qed.

Lemma relu_cases : forall z, (z <= 0 /\ relu z = 0) \/ (0 < z /\ relu z = z).
Proof.
  intro z. unfold relu. destruct (Qle_bool z 0) eqn:E.
  - left. split; [apply Qle_bool_true; exact E | reflexivity].
  - right. split; [|reflexivity]. apply Qnot_le_lt. intro H. apply Qle_bool_iff in H. congruence.
Qed.

Lemma divk_spec : forall da db k, divk da db = Some k -> db = (da * k)%positive.
Proof.
  induction da as [da IH|da IH|]; intros db k H; destruct db as [db|db|]; simpl in H; try discriminate.
  - rewrite (IH db k H). reflexivity.
  - injection H as <-. reflexivity.
  - injection H as <-. reflexivity.
  - injection H as <-. reflexivity.
Qed.

Lemma qadd_correct : forall a b, qadd a b == a + b.
Proof.
  intros [na da] [nb db]. unfold qadd. simpl.
  destruct (divk da db) as [k|] eqn:E1.
  - apply divk_spec in E1. subst db. unfold Qeq, Qplus. simpl. rewrite !Pos2Z.inj_mul. ring.
  - destruct (divk db da) as [k|] eqn:E2.
    + apply divk_spec in E2. subst da. unfold Qeq, Qplus. simpl. rewrite !Pos2Z.inj_mul. ring.
    + apply Qred_correct.
Qed.

Lemma qdot_correct : forall a b, qdot a b == dot a b.
Proof.
  induction a as [|x a IH]; intros b; [reflexivity|]. destruct b as [|y b]; [reflexivity|].
  simpl. rewrite qadd_correct, IH. reflexivity.
Qed.
Local Arguments qdot : simpl never.

(* ---- vectors ---- *)
Lemma dot_vadd_r : forall mu a b, length a = length b -> dot mu (vadd a b) == dot mu a + dot mu b.
Proof.
  induction mu as [|m mu IH]; intros a b H; [simpl; ring|].
  destruct a as [|p a], b as [|q b]; simpl in *; try discriminate; try ring.
  rewrite IH by lia. ring.
Qed.

Lemma dot_vadd_l : forall a b x, length a = length b -> dot (vadd a b) x == dot a x + dot b x.
Proof.
  induction a as [|p a IH]; intros b x H; destruct b as [|q b]; simpl in *; try discriminate; try ring.
  destruct x as [|y x]; simpl; [ring|]. rewrite IH by lia. ring.
Qed.

Lemma dot_zeros : forall k v, dot (zeros k) v == 0.
Proof. induction k as [|k IH]; intros v; [reflexivity|]. destruct v; simpl; [reflexivity|]. rewrite IH. ring. Qed.

Lemma length_zeros : forall k, length (zeros k) = k.
Proof. intro k. apply repeat_length. Qed.

Lemma dot_opp : forall r v, dot (map Qopp r) v == - dot r v.
Proof. induction r as [|a r IH]; intros v; [simpl; ring|]. destruct v; simpl; [ring|]. rewrite IH. ring. Qed.

Lemma dot_all_zero : forall a x, forallb (Qeq_bool 0) a = true -> dot a x == 0.
Proof.
  induction a as [|q a IH]; intros x H; [reflexivity|]. simpl in H. apply andb_true_iff in H as [H0 H].
  apply Qeq_bool_true in H0. destruct x; simpl; [reflexivity|]. rewrite IH by exact H. rewrite <- H0. ring.
Qed.

Lemma length_vadd : forall a b, length (vadd a b) = Nat.min (length a) (length b).
Proof. induction a as [|p a IH]; intros b; destruct b; simpl; auto. Qed.

Lemma scale_add_dot : forall m r acc v, length r = length acc ->
  dot (scale_add m r acc) v == dot acc v + m * dot r v.
Proof.
  induction r as [|a r IH]; intros acc v H; destruct acc as [|b acc]; simpl in *; try discriminate.
  - ring.
  - destruct v as [|y v]; simpl; [ring|]. rewrite qadd_correct. rewrite IH by lia. ring.
Qed.

Lemma length_scale_add : forall m r acc, length r = length acc -> length (scale_add m r acc) = length acc.
Proof. induction r as [|a r IH]; intros acc H; destruct acc; simpl in *; try discriminate; auto. Qed.

Lemma tmul_dot : forall W nu acc v, Forall (fun r => length r = length acc) W ->
  dot (tmul W nu acc) v == dot acc v + dot nu (mat_vec W v) /\ length (tmul W nu acc) = length acc.
Proof.
  induction W as [|r W IH]; intros nu acc v HW; unfold mat_vec in *.
  - destruct nu; simpl; split; auto; ring.
  - destruct nu as [|m nu]; simpl; [split; auto; ring|]. inversion HW as [|? ? Hr HW']; subst.
    destruct (Qeq_bool m 0) eqn:E.
    + apply Qeq_bool_true in E. destruct (IH nu acc v HW') as [IH1 IH2]. split; [|exact IH2].
      rewrite IH1. rewrite E. ring.
    + assert (Hl : length (scale_add m r acc) = length acc) by (apply length_scale_add; exact Hr).
      assert (HW2 : Forall (fun r0 => length r0 = length (scale_add m r acc)) W) by (rewrite Hl; exact HW').
      destruct (IH nu _ v HW2) as [IH1 IH2]. split; [|rewrite IH2; exact Hl].
      rewrite IH1. rewrite scale_add_dot by exact Hr. ring.
Qed.

(* ---- ReLU relaxations ---- *)
Definition phase_ok (p : phase) (z : Q) : Prop :=
  match p with
  | Act => 0 <= z
  | Inact => z <= 0
  | Unst a s t => a * z <= relu z /\ relu z <= s * z + t
  end.

Lemma relax_sound : forall ph z mu, Forall2 phase_ok ph z -> length mu = length z ->
  dot (fst (relax ph mu)) z + snd (relax ph mu) <= dot mu (map relu z).
Proof.
  intros ph z mu H. revert mu. induction H as [|p z0 ph z Hp H IH]; intros mu Hl.
  - destruct mu; simpl; lra.
  - destruct mu as [|m mu]; simpl in Hl; [discriminate|]. simpl.
    specialize (IH mu ltac:(lia)). destruct (relax ph mu) as [nu c] eqn:E. simpl in IH.
    destruct p as [| |a s t]; simpl in Hp |- *.
    + destruct (relu_cases z0) as [[H1 H2]|[H1 H2]]; rewrite H2; [|lra]. assert (Hz : z0 == 0) by lra. rewrite Hz. lra.
    + destruct (relu_cases z0) as [[H1 H2]|[H1 H2]]; rewrite H2; [|lra]. lra.
    + destruct Hp as [Hp1 Hp2]. destruct (Qle_bool 0 m) eqn:E0; simpl.
      * apply Qle_bool_true in E0.
        assert ((a * z0) * m <= relu z0 * m) by (apply Qmult_le_compat_r; assumption). 
        lra.
      * assert (Hm : m < 0) by (apply Qnot_le_lt; intro H0; apply Qle_bool_iff in H0; congruence).
        rewrite qadd_correct. assert (m * (s * z0 + t) <= m * relu z0) by nra. lra.
Qed.

Lemma unst_ok : forall a s t lz uz z, 0 <= a -> a <= 1 -> 0 <= s ->
  0 <= s * lz + t -> lz <= s * lz + t -> 0 <= s * uz + t -> uz <= s * uz + t ->
  lz <= z -> z <= uz -> a * z <= relu z /\ relu z <= s * z + t.
Proof.
  intros a s t lz uz z Ha0 Ha1 Hs H1 H2 H3 H4 Hl Hu.
  destruct (relu_cases z) as [[Hz Hr]|[Hz Hr]]; rewrite Hr.
  - split; [nra|]. assert (s * lz <= s * z) by nra. lra.
  - split; [nra|]. destruct (Qlt_le_dec s 1) as [Hs1|Hs1].
    + assert ((1 - s) * z <= (1 - s) * uz) by nra. lra.
    + assert ((s - 1) * lz <= (s - 1) * z) by nra. lra.
Qed.

(* ---- ReLU splits and their multipliers ---- *)
(* the side of a split: z >= 0 (true) or z <= 0 (false) *)
Definition side_ok (s : bool) (z : Q) : Prop := if s then 0 <= z else z <= 0.

Lemma set_nth_dot : forall nu z i d, d * nth i z 0 <= 0 ->
  dot (set_nth i (fun m => qadd m d) nu) z <= dot nu z.
Proof.
  induction nu as [|m nu IH]; intros z i d H; [destruct i; simpl; lra|].
  destruct z as [|y z]; [destruct i; simpl; lra|].
  destruct i as [|i]; simpl in H |- *.
  - rewrite qadd_correct. lra.
  - specialize (IH z i d H). lra.
Qed.

(* the multipliers of layer k's splits are >= 0, and their sides hold at its pre-activations z *)
Definition betas_ok (k : nat) (bs : list (rsplit * Q)) (z : vec) : Prop :=
  forall k' i s beta, In ((k', i, s), beta) bs -> k' = k -> 0 <= beta /\ side_ok s (nth i z 0).

Lemma add_betas_sound : forall k bs nu z, betas_ok k bs z -> dot (add_betas k bs nu) z <= dot nu z.
Proof.
  intros k. induction bs as [|[[[k' i] s] beta] bs IH]; intros nu z H; [simpl; lra|].
  simpl. assert (H' : betas_ok k bs z) by (intros ? ? ? ? Hin; apply H; right; exact Hin).
  eapply Qle_trans; [apply IH; exact H'|].
  destruct (Nat.eqb k k') eqn:E; [|lra].
  apply Nat.eqb_eq in E. destruct (H k' i s beta (or_introl eq_refl) (eq_sym E)) as [Hb Hs].
  apply set_nth_dot. destruct s; simpl in Hs |- *; nra.
Qed.

Lemma sides_at_In : forall k sp j s, In (j, s) (sides_at k sp) -> In (k, j, s) sp.
Proof.
  intros k. induction sp as [|[[k' i] s'] sp IH]; intros j s H; simpl in H; [contradiction|].
  destruct (Nat.eqb k k') eqn:E.
  - apply Nat.eqb_eq in E. subst k'. destruct H as [H|H]; [injection H as <- <-; left; reflexivity|right; auto].
  - right. auto.
Qed.

(* ---- a stack of levels (top first) ---- *)
Definition out (lv : list level) (x : vec) : vec := fold_right (fun lp v => eval_dense (fst lp) v) x lv.

(* the sides of the splits sp hold at the pre-activations of every level of lv (the level
   of index k: the one with k levels below it) *)
Fixpoint lv_sides (lv : list level) (sp : list rsplit) (x : vec) : Prop :=
  match lv with
  | [] => True
  | (l, _) :: rest => lv_sides rest sp x /\
      forall k i s, In (k, i, s) sp -> k = length rest -> side_ok s (nth i (affine (dn_W l) (dn_b l) (out rest x)) 0)
  end.

Lemma lv_sides_incl : forall lv sp sp' x, (forall a, In a sp' -> In a sp) -> lv_sides lv sp x -> lv_sides lv sp' x.
Proof.
  induction lv as [|[l ph] lv IH]; intros sp sp' x Hi H; simpl in *; auto.
  destruct H as [H1 H2]. split; [exact (IH sp sp' x Hi H1)|]. intros k i s Hin Hk. exact (H2 k i s (Hi _ Hin) Hk).
Qed.

Lemma lv_sides_nil : forall lv x, lv_sides lv [] x.
Proof. induction lv as [|[l ph] lv IH]; intros x; simpl; auto. split; [auto|]. intros ? ? ? []. Qed.

Fixpoint levels_ok (lv : list level) (x : vec) : Prop :=
  match lv with
  | [] => True
  | (l, ph) :: rest =>
      levels_ok rest x /\ (dn_relu l = true -> Forall2 phase_ok ph (affine (dn_W l) (dn_b l) (out rest x)))
  end.

Fixpoint lv_wf (lv : list level) (n : nat) : Prop :=
  match lv with
  | [] => True
  | (l, _) :: rest => lv_wf rest n /\ fits l (width rest n) = true
  end.

Lemma fits_rows : forall l m, fits l m = true ->
  Forall (fun r => length r = m) (dn_W l) /\ length (dn_b l) = length (dn_W l).
Proof.
  unfold fits. intros l m H. apply andb_true_iff in H as [H1 H2]. split.
  - apply Forall_forall. intros r Hr. rewrite forallb_forall in H1. apply Nat.eqb_eq. auto.
  - apply Nat.eqb_eq. exact H2.
Qed.

Lemma length_affine : forall W b v, length b = length W -> length (affine W b v) = length W.
Proof. intros W b v H. unfold affine, mat_vec. rewrite length_vadd, map_length, H. lia. Qed.

Lemma length_out : forall lv x, lv_wf lv (length x) -> length (out lv x) = width lv (length x).
Proof.
  induction lv as [|[l ph] lv IH]; intros x H; [reflexivity|]. destruct H as [_ H].
  destruct (fits_rows _ _ H) as [_ Hb]. simpl. unfold eval_dense.
  destruct (dn_relu l); [rewrite map_length|]; apply length_affine; exact Hb.
Qed.

Lemma in_box_length : forall B x, in_box B x -> length B = length x.
Proof. intros B x H. induction H; simpl; auto. Qed.

Lemma box_min_le : forall f B x, in_box B x -> box_min f B <= dot f x.
Proof.
  induction f as [|a f IH]; intros B x H; [simpl; lra|].
  destruct H as [|[lo hi] xi B x [Hlo Hhi] H]; simpl; [lra|]. simpl in Hlo, Hhi.
  specialize (IH B x H). destruct (Qle_bool 0 a) eqn:E.
  - apply Qle_bool_true in E. assert (a * lo <= a * xi) by nra. lra.
  - assert (Ha : a < 0) by (apply Qnot_le_lt; intro H0; apply Qle_bool_iff in H0; congruence).
    assert (a * hi <= a * xi) by nra. lra.
Qed.

Lemma back_sound : forall lv x B, in_box B x -> lv_wf lv (length x) -> levels_ok lv x ->
  forall bs mu c ax, lv_sides lv (map fst bs) x -> Forall (fun b => 0 <= snd b) bs ->
  length mu = width lv (length x) -> length ax = length x ->
  back lv bs mu c ax B <= dot mu (out lv x) + c + dot ax x.
Proof.
  induction lv as [|[l ph] lv IH]; intros x B HB Hwf Hok bs mu c ax Hsd Hbs Hmu Hax.
  - simpl. rewrite Qred_correct. simpl in Hmu.
    assert (H := box_min_le (vadd mu ax) B x HB). rewrite dot_vadd_l in H by lia. lra.
  - destruct Hwf as [Hwf Hfit]. destruct Hok as [Hok Hph]. destruct Hsd as [Hsd Hside]. simpl in Hmu.
    destruct (fits_rows _ _ Hfit) as [Hrows Hb].
    rewrite <- (in_box_length B x HB) in Hrows.
    assert (Hz : length (zeros (width lv (length B))) = width lv (length B)) by apply length_zeros.
    assert (Hrows' : Forall (fun r => length r = length (zeros (width lv (length B)))) (dn_W l))
      by (rewrite Hz; exact Hrows).
    assert (Hv : length (out lv x) = width lv (length x)) by (apply length_out; exact Hwf).
    set (v := out lv x) in *.
    assert (Hmv : length (mat_vec (dn_W l) v) = length (dn_b l)) by (unfold mat_vec; rewrite map_length; lia).
    (* the multipliers only lower the bound, by the splits' sides *)
    assert (Hbeta : forall nu, dot (add_betas (length lv) bs nu) (mat_vec (dn_W l) v) + dot (add_betas (length lv) bs nu) (dn_b l)
                               <= dot nu (mat_vec (dn_W l) v) + dot nu (dn_b l)).
    { intro nu. rewrite <- !dot_vadd_r by exact Hmv. apply add_betas_sound. intros k' i s beta Hin Hk. split.
      - rewrite Forall_forall in Hbs. exact (Hbs _ Hin).
      - apply (Hside k' i s); [|exact Hk]. exact (in_map fst bs _ Hin). }
    simpl. fold v. unfold eval_dense.
    destruct (dn_relu l) eqn:Er.
    + destruct (relax ph mu) as [nu0 c1] eqn:Erx. set (nu := add_betas (length lv) bs nu0) in *.
      destruct (tmul_dot (dn_W l) nu _ v Hrows') as [T1 T2].
      assert (IH' := IH x B HB Hwf Hok bs (tmul (dn_W l) nu (zeros (width lv (length B))))
                       (qadd (qadd c c1) (qdot nu (dn_b l))) ax Hsd Hbs
                       ltac:(rewrite T2, Hz, (in_box_length B x HB); reflexivity) Hax).
      fold v in IH'. assert (Hc : qadd (qadd c c1) (qdot nu (dn_b l)) == c + c1 + dot nu (dn_b l)) by (rewrite !qadd_correct, qdot_correct; reflexivity). rewrite T1, dot_zeros in IH'.
      assert (R := relax_sound ph (affine (dn_W l) (dn_b l) v) mu (Hph eq_refl)
                     ltac:(rewrite length_affine by exact Hb; exact Hmu)).
      rewrite Erx in R. simpl in R. unfold affine in R. rewrite dot_vadd_r in R by exact Hmv.
      assert (A := Hbeta nu0). fold nu in A.
      unfold affine. lra.
    + set (nu := add_betas (length lv) bs mu) in *.
      destruct (tmul_dot (dn_W l) nu _ v Hrows') as [T1 T2].
      assert (IH' := IH x B HB Hwf Hok bs (tmul (dn_W l) nu (zeros (width lv (length B))))
                       (qadd (qadd c 0) (qdot nu (dn_b l))) ax Hsd Hbs
                       ltac:(rewrite T2, Hz, (in_box_length B x HB); reflexivity) Hax).
      fold v in IH'. assert (Hc : qadd (qadd c 0) (qdot nu (dn_b l)) == c + 0 + dot nu (dn_b l)) by (rewrite !qadd_correct, qdot_correct; reflexivity). rewrite T1, dot_zeros in IH'.
      assert (A := Hbeta mu). fold nu in A.
      unfold affine. rewrite dot_vadd_r by exact Hmv. lra.
Qed.

Lemma lower_sound : forall lv x B r b, in_box B x -> lv_wf lv (length x) -> levels_ok lv x ->
  length r = width lv (length x) -> lower lv B r b <= dot r (out lv x) + b.
Proof.
  intros lv x B r b HB Hwf Hok Hr. unfold lower.
  assert (H := back_sound lv x B HB Hwf Hok [] r b (zeros (length B)) (lv_sides_nil lv x) (Forall_nil _) Hr
                 ltac:(rewrite length_zeros; apply in_box_length; exact HB)).
  rewrite dot_zeros in H. lra.
Qed.

Lemma upper_sound : forall lv x B r b, in_box B x -> lv_wf lv (length x) -> levels_ok lv x ->
  length r = width lv (length x) -> dot r (out lv x) + b <= upper lv B r b.
Proof.
  intros lv x B r b HB Hwf Hok Hr. unfold upper.
  assert (H := back_sound lv x B HB Hwf Hok [] (map Qopp r) (- b) (zeros (length B)) (lv_sides_nil lv x) (Forall_nil _)
                 ltac:(rewrite map_length; exact Hr)
                 ltac:(rewrite length_zeros; apply in_box_length; exact HB)).
  rewrite dot_zeros, dot_opp in H. lra.
Qed.

(* ---- forward symbolic forms ---- *)
Definition eval_form (f : form) (x : vec) : Q := dot (fst f) x + snd f.

(* L_j <= v_j <= U_j at x, for every j *)
Fixpoint bounded_by (L U : list form) (v x : vec) : Prop :=
  match L, U, v with
  | [], [], [] => True
  | l :: L', u :: U', y :: v' => (eval_form l x <= y /\ y <= eval_form u x) /\ bounded_by L' U' v' x
  | _, _, _ => False
  end.

Definition flen (n : nat) (F : list form) : Prop := Forall (fun f => length (fst f) = n) F.

Lemma dot_scale : forall a c x, dot (map (Qmult a) c) x == a * dot c x.
Proof. induction c as [|p c IH]; intros x; [simpl; ring|]. destruct x; simpl; [ring|]. rewrite IH. ring. Qed.

Lemma comb_step : forall a l u y acc x, length (fst l) = length x -> length (fst u) = length x ->
  length (fst acc) = length x -> eval_form l x <= y -> y <= eval_form u x ->
  eval_form (comb_acc a l u acc) x <= eval_form acc x + a * y /\ length (fst (comb_acc a l u acc)) = length x.
Proof.
  intros a l u y acc x Hl Hu Hacc Hly Huy. unfold comb_acc. unfold form, vec in *.
  destruct (Qeq_bool a 0) eqn:E.
  - apply Qeq_bool_true in E. split; [|exact Hacc]. rewrite E. lra.
  - unfold eval_form in *. unfold form, vec in *. destruct (Qle_bool 0 a) eqn:E0; simpl.
    + apply Qle_bool_true in E0. rewrite scale_add_dot by lia. rewrite qadd_correct.
      split; [|rewrite length_scale_add by lia; exact Hacc].
      assert ((dot (fst l) x + snd l) * a <= y * a) by (apply Qmult_le_compat_r; assumption). nra.
    + assert (Ha : a < 0) by (apply Qnot_le_lt; intro H0; apply Qle_bool_iff in H0; congruence).
      rewrite scale_add_dot by lia. rewrite qadd_correct.
      split; [|rewrite length_scale_add by lia; exact Hacc].
      assert (0 <= (dot (fst u) x + snd u - y) * (- a)) by (apply Qmult_le_0_compat; lra). nra.
Qed.

Lemma comb_step_up : forall a l u y acc x, length (fst l) = length x -> length (fst u) = length x ->
  length (fst acc) = length x -> eval_form l x <= y -> y <= eval_form u x ->
  eval_form acc x + a * y <= eval_form (comb_acc a u l acc) x /\ length (fst (comb_acc a u l acc)) = length x.
Proof.
  intros a l u y acc x Hl Hu Hacc Hly Huy. unfold comb_acc. unfold form, vec in *.
  destruct (Qeq_bool a 0) eqn:E.
  - apply Qeq_bool_true in E. split; [|exact Hacc]. rewrite E. lra.
  - unfold eval_form in *. unfold form, vec in *. destruct (Qle_bool 0 a) eqn:E0; simpl.
    + apply Qle_bool_true in E0. rewrite scale_add_dot by lia. rewrite qadd_correct.
      split; [|rewrite length_scale_add by lia; exact Hacc].
      assert (y * a <= (dot (fst u) x + snd u) * a) by (apply Qmult_le_compat_r; assumption). nra.
    + assert (Ha : a < 0) by (apply Qnot_le_lt; intro H0; apply Qle_bool_iff in H0; congruence).
      rewrite scale_add_dot by lia. rewrite qadd_correct.
      split; [|rewrite length_scale_add by lia; exact Hacc].
      assert (0 <= (y - (dot (fst l) x + snd l)) * (- a)) by (apply Qmult_le_0_compat; lra). nra.
Qed.

Lemma comb_lower : forall r L U v x acc, bounded_by L U v x -> flen (length x) L -> flen (length x) U ->
  length (fst acc) = length x ->
  eval_form (comb r L U acc) x <= eval_form acc x + dot r v /\ length (fst (comb r L U acc)) = length x.
Proof.
  induction r as [|a r IH]; intros L U v x acc HB HL HU Hacc.
  - destruct L, U; simpl; split; auto; lra.
  - destruct L as [|l L], U as [|u U], v as [|y v]; simpl in HB; try contradiction.
    + simpl. split; auto; lra.
    + destruct HB as [[H1 H2] HB]. inversion HL as [|? ? Hl HL']; inversion HU as [|? ? Hu HU']; subst.
      simpl. destruct (comb_step a l u y acc x Hl Hu Hacc H1 H2) as [S1 S2].
      destruct (IH L U v x _ HB HL' HU' S2) as [I1 I2]. split; [unfold form, vec in *; lra | exact I2].
Qed.

Lemma comb_upper : forall r L U v x acc, bounded_by L U v x -> flen (length x) L -> flen (length x) U ->
  length (fst acc) = length x ->
  eval_form acc x + dot r v <= eval_form (comb r U L acc) x /\ length (fst (comb r U L acc)) = length x.
Proof.
  induction r as [|a r IH]; intros L U v x acc HB HL HU Hacc.
  - destruct L, U; simpl; split; auto; lra.
  - destruct L as [|l L], U as [|u U], v as [|y v]; simpl in HB; try contradiction.
    + simpl. split; auto; lra.
    + destruct HB as [[H1 H2] HB]. inversion HL as [|? ? Hl HL']; inversion HU as [|? ? Hu HU']; subst.
      simpl. destruct (comb_step_up a l u y acc x Hl Hu Hacc H1 H2) as [S1 S2].
      destruct (IH L U v x _ HB HL' HU' S2) as [I1 I2]. split; [unfold form, vec in *; lra | exact I2].
Qed.

Lemma layer_forms_sound : forall L U v x W b, bounded_by L U v x -> flen (length x) L -> flen (length x) U ->
  length b = length W ->
  let zf := layer_forms (length x) L U W b in
  bounded_by (map fst zf) (map snd zf) (affine W b v) x /\ flen (length x) (map fst zf) /\ flen (length x) (map snd zf).
Proof.
  intros L U v x. induction W as [|r W IH]; intros b HB HL HU Hb; destruct b as [|c b]; simpl in Hb; try discriminate.
  - simpl. unfold flen. auto.
  - simpl. unfold affine, mat_vec in *. simpl.
    assert (Hz : length (fst (zeros (length x), c)) = length x) by apply length_zeros.
    destruct (comb_lower r L U v x _ HB HL HU Hz) as [A1 A2].
    destruct (comb_upper r L U v x _ HB HL HU Hz) as [B1 B2].
    destruct (IH b HB HL HU ltac:(lia)) as [I1 [I2 I3]].
    assert (Hc : eval_form (zeros (length x), c) x == c) by (unfold eval_form; simpl; rewrite dot_zeros; ring).
    split; [split; [split|]|split; constructor]; auto; unfold form, vec in *; lra.
Qed.

Lemma form_min_sound : forall f B x, in_box B x -> form_min f B <= eval_form f x.
Proof. intros f B x HB. unfold form_min, eval_form. assert (H := box_min_le (fst f) B x HB). lra. Qed.

Lemma form_max_sound : forall f B x, in_box B x -> eval_form f x <= form_max f B.
Proof.
  intros f B x HB. unfold form_max, eval_form. assert (H := box_min_le (map Qopp (fst f)) B x HB).
  rewrite dot_opp in H. lra.
Qed.

Lemma qmax_le : forall a b z, a <= z -> b <= z -> qmax a b <= z.
Proof. intros a b z Ha Hb. unfold qmax. destruct (Qle_bool a b); assumption. Qed.

Lemma qmin_ge : forall a b z, z <= a -> z <= b -> z <= qmin a b.
Proof. intros a b z Ha Hb. unfold qmin. destruct (Qle_bool a b); assumption. Qed.

Definition params_ok (p : phase) : Prop := match p with Unst a s t => 0 <= a /\ 0 <= s | _ => True end.

Lemma phase_checks_with_sound : forall lz uz z p, phase_checks_with lz uz p = true -> lz <= z -> z <= uz ->
  phase_ok p z /\ params_ok p.
Proof.
  intros lz uz z p H Hl Hu. unfold phase_checks_with in H.
  destruct (Qlt_bool uz lz) eqn:E; [apply Qlt_bool_true in E; exfalso; lra|]. simpl in H.
  destruct p as [| |a s t]; simpl in H |- *.
  - apply Qle_bool_true in H. split; [lra | exact I].
  - apply Qle_bool_true in H. split; [lra | exact I].
  - repeat rewrite andb_true_iff in H.
    destruct H as [[[[[[H1 H2] H3] H4] H5] H6] H7].
    apply Qle_bool_true in H1, H2, H3, H4, H5, H6, H7.
    split; [apply (unst_ok a s t lz uz); assumption | split; assumption].
Qed.

Lemma clip_sound : forall sides i lz uz z, lz <= z -> z <= uz -> (forall s, In (i, s) sides -> side_ok s z) ->
  fst (clip sides i lz uz) <= z /\ z <= snd (clip sides i lz uz).
Proof.
  induction sides as [|[j s] sides IH]; intros i lz uz z Hl Hu Hs; simpl; [auto|].
  assert (Hs' : forall s', In (i, s') sides -> side_ok s' z) by (intros s' Hin; apply Hs; right; exact Hin).
  destruct (Nat.eqb i j) eqn:E; [|apply IH; auto].
  apply Nat.eqb_eq in E. subst j. assert (Hz := Hs s (or_introl eq_refl)).
  destruct s; simpl in Hz; apply IH; auto; [apply qmax_le | apply qmin_ge]; assumption.
Qed.

Lemma phase_checks_sound : forall lv x B r c lzf uzf p sides i, in_box B x -> lv_wf lv (length x) -> levels_ok lv x ->
  length r = width lv (length x) -> lzf <= dot r (out lv x) + c -> dot r (out lv x) + c <= uzf ->
  (forall s, In (i, s) sides -> side_ok s (dot r (out lv x) + c)) ->
  phase_checks lv B r c lzf uzf p sides i = true -> phase_ok p (dot r (out lv x) + c) /\ params_ok p.
Proof.
  intros lv x B r c lzf uzf p sides i HB Hwf Hok Hr Hl Hu Hs H. unfold phase_checks in H. cbv zeta in H.
  destruct (phase_checks_with (fst (clip sides i lzf uzf)) (snd (clip sides i lzf uzf)) p) eqn:E.
  - destruct (clip_sound sides i lzf uzf _ Hl Hu Hs) as [C1 C2]. exact (phase_checks_with_sound _ _ _ _ E C1 C2).
  - assert (Hl' : qmax lzf (lower lv B r c) <= dot r (out lv x) + c)
      by (apply qmax_le; [exact Hl | apply lower_sound; assumption]).
    assert (Hu' : dot r (out lv x) + c <= qmin uzf (upper lv B r c))
      by (apply qmin_ge; [exact Hu | apply upper_sound; assumption]).
    destruct (clip_sound sides i _ _ _ Hl' Hu' Hs) as [C1 C2]. exact (phase_checks_with_sound _ _ _ _ H C1 C2).
Qed.

Lemma act_forms_sound : forall p lf uf z x, phase_ok p z -> params_ok p ->
  eval_form lf x <= z -> z <= eval_form uf x -> length (fst lf) = length x -> length (fst uf) = length x ->
  eval_form (fst (act_forms (length x) p lf uf)) x <= relu z /\ relu z <= eval_form (snd (act_forms (length x) p lf uf)) x
  /\ length (fst (fst (act_forms (length x) p lf uf))) = length x /\ length (fst (snd (act_forms (length x) p lf uf))) = length x.
Proof.
  intros p lf uf z x Hp Hpar Hl Hu Hlf Huf. unfold eval_form in *.
  destruct p as [| |a s t]; simpl in Hp, Hpar |- *.
  - destruct (relu_cases z) as [[H1 H2]|[H1 H2]]; rewrite H2; [assert (Hz : z == 0) by lra|]; repeat split; lra || auto.
  - destruct (relu_cases z) as [[H1 H2]|[H1 H2]]; rewrite H2; [|lra].
    rewrite dot_zeros. repeat split; try lra; apply length_zeros.
  - destruct Hp as [Hp1 Hp2]. destruct Hpar as [Ha Hs]. rewrite !dot_scale. rewrite !map_length.
    assert (a * (dot (fst lf) x + snd lf) <= a * z) by nra.
    assert (s * z <= s * (dot (fst uf) x + snd uf)) by nra.
    repeat split; auto; lra.
Qed.

Lemma relu_step_sound : forall lv x B, in_box B x -> lv_wf lv (length x) -> levels_ok lv x ->
  forall sides W b i zf ph L' U', Forall (fun r => length r = width lv (length x)) W ->
  bounded_by (map fst zf) (map snd zf) (affine W b (out lv x)) x ->
  flen (length x) (map fst zf) -> flen (length x) (map snd zf) ->
  (forall j s, In (j, s) sides -> (i <= j)%nat -> side_ok s (nth (j - i) (affine W b (out lv x)) 0)) ->
  relu_step lv B sides i W b zf ph = Some (L', U') ->
  Forall2 phase_ok ph (affine W b (out lv x)) /\ bounded_by L' U' (map relu (affine W b (out lv x))) x
  /\ flen (length x) L' /\ flen (length x) U'.
Proof.
  intros lv x B HB Hwf Hok sides. induction W as [|r W IH]; intros b i zf ph L' U' HW Hz HL HU Hs H.
  - destruct b, zf, ph; simpl in H; try discriminate. injection H as <- <-.
    unfold affine, mat_vec. simpl. repeat split; constructor.
  - destruct b as [|c b], zf as [|[lf uf] zf], ph as [|p ph]; simpl in H; try discriminate.
    assert (Hs0 : forall s, In (i, s) sides -> side_ok s (dot r (out lv x) + c)).
    { intros s Hin. specialize (Hs i s Hin (le_n i)). rewrite Nat.sub_diag in Hs. exact Hs. }
    assert (Hs1 : forall j s, In (j, s) sides -> (S i <= j)%nat -> side_ok s (nth (j - S i) (affine W b (out lv x)) 0)).
    { intros j s Hin Hj. specialize (Hs j s Hin ltac:(lia)). replace (j - i)%nat with (S (j - S i)) in Hs by lia.
      exact Hs. }
    unfold affine, mat_vec in *. simpl in Hz |- *. destruct Hz as [[Hz1 Hz2] Hz].
    inversion HW as [|? ? Hr HW']; subst. simpl in HL, HU.
    inversion HL as [|? ? Hlf HL']; inversion HU as [|? ? Huf HU']; subst.
    rewrite (in_box_length B x HB) in H.
    destruct (phase_checks lv B r c (form_min lf B) (form_max uf B) p sides i) eqn:Ep; [|discriminate].
    destruct (phase_checks_sound lv x B r c _ _ p sides i HB Hwf Hok Hr
                (Qle_trans _ _ _ (form_min_sound lf B x HB) Hz1)
                (Qle_trans _ _ _ Hz2 (form_max_sound uf B x HB)) Hs0 Ep) as [Hp Hpar].
    destruct (relu_step lv B sides (S i) W b zf ph) as [[L2 U2]|] eqn:Er; [|discriminate].
    destruct (IH b (S i) zf ph L2 U2 HW' Hz HL' HU' Hs1 Er) as [I1 [I2 [I3 I4]]].
    destruct (act_forms_sound p lf uf _ x Hp Hpar Hz1 Hz2 Hlf Huf) as [A1 [A2 [A3 A4]]].
    destruct (act_forms (length x) p lf uf) as [l2 u2]. injection H as <- <-. simpl in A1, A2, A3, A4.
    repeat split; try constructor; auto.
Qed.

Lemma id_forms_sound : forall x, bounded_by (id_forms (length x)) (id_forms (length x)) x x
  /\ flen (length x) (id_forms (length x)).
Proof.
  assert (Hsh : forall L U v x y, bounded_by L U v x ->
            bounded_by (map (fun f => (0 :: fst f, snd f)) L) (map (fun f => (0 :: fst f, snd f)) U) v (y :: x)).
  { induction L as [|l L IH]; intros U v x y H; destruct U as [|u U], v as [|z v]; simpl in H |- *; try contradiction; auto.
    destruct H as [[H1 H2] H]. unfold eval_form in *. simpl. unfold form, vec in *. split; [split; lra | auto]. }
  induction x as [|y x IH]; [simpl; unfold flen; auto|]. destruct IH as [IH1 IH2].
  simpl. split.
  - split; [|apply Hsh; exact IH1]. unfold eval_form. simpl. rewrite dot_zeros. split; lra.
  - constructor; [simpl; rewrite length_zeros; reflexivity|]. unfold flen in *. rewrite Forall_map.
    eapply Forall_impl; [|exact IH2]. intros f Hf. simpl in *. lia.
Qed.

(* the pre-activation of neuron i of layer k of the layers Ls at their input v *)
Fixpoint pre_from (Ls : list dense) (v : vec) (k i : nat) : Q :=
  match Ls, k with
  | [], _ => 0
  | l :: _, O => nth i (affine (dn_W l) (dn_b l) v) 0
  | l :: Ls', S k' => pre_from Ls' (eval_dense l v) k' i
  end.

(* the sides of the splits sp of layer d and above hold at the input v of layer d *)
Definition splits_hold (Ls : list dense) (v : vec) (d : nat) (sp : list rsplit) : Prop :=
  forall k i s, In (k, i, s) sp -> (d <= k)%nat -> side_ok s (pre_from Ls v (k - d) i).

Lemma check_levels_sound : forall B x sp Ls Ps below L U lv, in_box B x ->
  lv_wf below (length x) -> levels_ok below x -> lv_sides below sp x -> splits_hold Ls (out below x) (length below) sp ->
  bounded_by L U (out below x) x ->
  flen (length x) L -> flen (length x) U -> check_levels B sp below L U Ls Ps = Some lv ->
  lv_wf lv (length x) /\ levels_ok lv x /\ lv_sides lv sp x
  /\ out lv x = fold_left (fun v l => eval_dense l v) Ls (out below x).
Proof.
  intros B x sp. induction Ls as [|l Ls IH]; intros Ps below L U lv HB Hwf Hok Hsd Hsp HLU HL HU H.
  - destruct Ps; simpl in H; [|discriminate]. injection H as <-. auto.
  - destruct Ps as [|ph Ps]; simpl in H; [discriminate|].
    destruct (fits l (width below (length B))) eqn:Hf; [|discriminate].
    rewrite (in_box_length B x HB) in Hf, H.
    destruct (fits_rows _ _ Hf) as [Hrows Hb].
    assert (Hs0 : forall k i s, In (k, i, s) sp -> k = length below ->
                  side_ok s (nth i (affine (dn_W l) (dn_b l) (out below x)) 0)).
    { intros k i s Hin Hk. specialize (Hsp k i s Hin ltac:(lia)). subst k. rewrite Nat.sub_diag in Hsp. exact Hsp. }
    assert (Hsd' : lv_sides ((l, ph) :: below) sp x) by (simpl; split; [exact Hsd | exact Hs0]).
    assert (Hsp' : splits_hold Ls (out ((l, ph) :: below) x) (S (length below)) sp).
    { intros k i s Hin Hk. specialize (Hsp k i s Hin ltac:(lia)).
      replace (k - length below)%nat with (S (k - S (length below))) in Hsp by lia. exact Hsp. }
    destruct (layer_forms_sound L U (out below x) x (dn_W l) (dn_b l) HLU HL HU Hb) as [Z1 [Z2 Z3]].
    set (zf := layer_forms (length x) L U (dn_W l) (dn_b l)) in *.
    destruct (dn_relu l) eqn:Er.
    + simpl in H.
      destruct (relu_step below B (sides_at (length below) sp) 0 (dn_W l) (dn_b l) zf ph) as [[L' U']|] eqn:Es;
        [|discriminate].
      assert (Hs1 : forall j s, In (j, s) (sides_at (length below) sp) -> (0 <= j)%nat ->
                    side_ok s (nth (j - 0) (affine (dn_W l) (dn_b l) (out below x)) 0)).
      { intros j s Hin _. rewrite Nat.sub_0_r. exact (Hs0 _ j s (sides_at_In _ _ _ _ Hin) eq_refl). }
      destruct (relu_step_sound below x B HB Hwf Hok _ (dn_W l) (dn_b l) 0 zf ph L' U' Hrows Z1 Z2 Z3 Hs1 Es)
        as [R1 [R2 [R3 R4]]].
      destruct (IH Ps ((l, ph) :: below) L' U' lv HB) as [H1 [H2 H3]]; auto.
      * simpl. split; assumption.
      * simpl. split; [exact Hok|]. intros _. exact R1.
      * simpl. unfold eval_dense. rewrite Er. exact R2.
    + destruct (IH Ps ((l, ph) :: below) (map fst zf) (map snd zf) lv HB) as [H1 [H2 H3]]; auto.
      * simpl. split; assumption.
      * simpl. split; [exact Hok|]. congruence.
      * simpl. unfold eval_dense. rewrite Er. exact Z1.
Qed.

(* ---- a close's own lower slopes ---- *)
Lemma slope_ph_ok : forall ph al z, Forall2 phase_ok ph z -> Forall (fun a => 0 <= a /\ a <= 1) al ->
  Forall2 phase_ok (slope_ph ph al) z.
Proof.
  intros ph al z H. revert al. induction H as [|p z0 ph z Hp H IH]; intros al Ha.
  - destruct al; simpl; constructor.
  - destruct al as [|a al]; [destruct p; simpl; constructor; assumption|].
    inversion Ha as [|? ? [Ha0 Ha1] Ha']; subst.
    destruct p as [| |a0 s t]; simpl; constructor; auto.
    simpl in Hp |- *. destruct Hp as [_ Hp2]. split; [|exact Hp2].
    destruct (relu_cases z0) as [[H1 H2]|[H1 H2]]; rewrite H2; nra.
Qed.

Lemma with_slopes_out : forall lv sl x, out (with_slopes lv sl) x = out lv x.
Proof.
  induction lv as [|[l ph] lv IH]; intros sl x; destruct sl as [|al sl]; simpl; auto.
  unfold out in *. simpl. f_equal. apply IH.
Qed.

Lemma with_slopes_width : forall lv sl n, width (with_slopes lv sl) n = width lv n.
Proof. intros [|[l ph] lv] [|al sl] n; reflexivity. Qed.

Lemma with_slopes_length : forall lv sl, length (with_slopes lv sl) = length lv.
Proof. induction lv as [|[l ph] lv IH]; intros [|al sl]; simpl; auto. Qed.

Lemma with_slopes_wf : forall lv sl n, lv_wf lv n -> lv_wf (with_slopes lv sl) n.
Proof.
  induction lv as [|[l ph] lv IH]; intros sl n H; destruct sl as [|al sl]; simpl in *; auto.
  destruct H as [H1 H2]. split; [exact (IH sl n H1)|]. rewrite with_slopes_width. exact H2.
Qed.

Lemma with_slopes_sides : forall lv sl sp x, lv_sides lv sp x -> lv_sides (with_slopes lv sl) sp x.
Proof.
  induction lv as [|[l ph] lv IH]; intros sl sp x H; destruct sl as [|al sl]; simpl in *; auto.
  destruct H as [H1 H2]. split; [exact (IH sl sp x H1)|].
  intros k i s Hin Hk. rewrite with_slopes_out. rewrite with_slopes_length in Hk. exact (H2 k i s Hin Hk).
Qed.

Lemma with_slopes_ok : forall lv sl x, slopes_ok sl = true -> levels_ok lv x -> levels_ok (with_slopes lv sl) x.
Proof.
  unfold slopes_ok. induction lv as [|[l ph] lv IH]; intros sl x Hs H; destruct sl as [|al sl]; simpl in *; auto.
  apply andb_true_iff in Hs as [Ha Hs]. destruct H as [H1 H2]. split; [exact (IH sl x Hs H1)|].
  intros Hr. rewrite with_slopes_out. apply slope_ph_ok; [exact (H2 Hr)|].
  apply Forall_forall. intros a Hin. rewrite forallb_forall in Ha. specialize (Ha a Hin).
  apply andb_true_iff in Ha as [Ha0 Ha1]. split; apply Qle_bool_iff; assumption.
Qed.

Lemma check_closes_sound : forall lv x B sp C U cl, in_box B x -> lv_wf lv (length x) -> levels_ok lv x ->
  lv_sides lv sp x -> check_closes lv B sp C U cl = true -> conj_holds C x (out lv x) -> ~ dnf_holds U x (out lv x).
Proof.
  intros lv x B sp C U. induction U as [|D U IH]; intros cl HB Hwf Hok Hsd H HC HU.
  - inversion HU.
  - destruct cl as [|[[[[side k] bnd] betas] sl] cl]; simpl in H; [discriminate|].
    apply andb_true_iff in H as [H H']. inversion HU as [? ? HD|? ? HU']; subst.
    2: exact (IH cl HB Hwf Hok Hsd H' HC HU').
    destruct (nth_error (if side then D else C) k) as [a|] eqn:Ea; [|discriminate].
    repeat rewrite andb_true_iff in H. destruct H as [[[[[[H1 H2] _] H5] H6] H3] H4].
    apply Nat.eqb_eq in H1. apply Nat.eqb_eq in H2. apply Qeq_bool_true in H3. apply Qlt_bool_true in H4.
    rewrite (in_box_length B x HB) in H1, H2. rewrite <- (with_slopes_width lv sl) in H2.
    assert (Hsd' : lv_sides (with_slopes lv sl) (map fst (combine sp betas)) x).
    { apply with_slopes_sides. apply (lv_sides_incl lv sp); [|exact Hsd]. intros [[k' i] s] Hin.
      apply in_map_iff in Hin as [[a' b'] [Ha' Hin]]. simpl in Ha'. subst a'. exact (in_combine_l _ _ _ _ Hin). }
    assert (Hbs : Forall (fun b => 0 <= snd b) (combine sp betas)).
    { apply Forall_forall. intros [a' b'] Hin. apply in_combine_r in Hin. rewrite forallb_forall in H5.
      apply Qle_bool_true. exact (H5 b' Hin). }
    assert (Hb := back_sound (with_slopes lv sl) x B HB (with_slopes_wf lv sl _ Hwf) (with_slopes_ok lv sl x H6 Hok)
                    (combine sp betas) (at_y a) 0 (at_x a) Hsd' Hbs H2 H1).
    rewrite with_slopes_out in Hb.
    assert (Hfail : ~ atom_holds a x (out lv x)) by (unfold atom_holds; lra).
    apply nth_error_In in Ea. destruct side.
    + apply Hfail. unfold conj_holds in HD. rewrite Forall_forall in HD. auto.
    + apply Hfail. unfold conj_holds in HC. rewrite Forall_forall in HC. auto.
Qed.

(* ---- the branch-and-bound tree ---- *)
Lemma in_box_set_le : forall B x i c, in_box B x -> nth i x 0 <= c ->
  in_box (set_nth i (fun lu => (fst lu, c)) B) x.
Proof.
  induction B as [|lu B IH]; intros x i c HB Hc; inversion HB as [|? xi ? x' [H1 H2] HB']; subst;
    [destruct i; simpl; constructor|].
  destruct i as [|i]; simpl in *; constructor; try (simpl; split; assumption); auto; apply IH; assumption.
Qed.

Lemma in_box_set_ge : forall B x i c, in_box B x -> c <= nth i x 0 ->
  in_box (set_nth i (fun lu => (c, snd lu)) B) x.
Proof.
  induction B as [|lu B IH]; intros x i c HB Hc; inversion HB as [|? xi ? x' [H1 H2] HB']; subst;
    [destruct i; simpl; constructor|].
  destruct i as [|i]; simpl in *; constructor; try (simpl; split; assumption); auto; apply IH; assumption.
Qed.

Lemma in_box_nth : forall B x i lu, in_box B x -> nth_error B i = Some lu ->
  fst lu <= nth i x 0 /\ nth i x 0 <= snd lu.
Proof.
  induction B as [|lu0 B IH]; intros x i lu HB Hi; [destruct i; discriminate|].
  inversion HB as [|? xi ? x' [H1 H2] HB']; subst.
  destruct i as [|i]; simpl in *; [injection Hi as <-; auto|]. eauto.
Qed.

Lemma eval_relu_out : forall N x lv, out lv x = fold_left (fun v l => eval_dense l v) (rn_layers N) (out [] x) ->
  out lv x = eval_relu N x.
Proof. intros N x lv H. rewrite H. reflexivity. Qed.

Lemma check_tree_sound : forall N C U t B sp x, check_tree N C U B sp t = true -> in_box B x ->
  splits_hold (rn_layers N) x 0 sp -> conj_holds C x (eval_relu N x) -> ~ dnf_holds U x (eval_relu N x).
Proof.
  intros N C U. induction t as [Ps cl|i c le IHle ge IHge|k i le IHle ge IHge|i]; intros B sp x H HB Hsp HC.
  - simpl in H. destruct (check_levels B sp [] (id_forms (length B)) (id_forms (length B)) (rn_layers N) Ps) as [lv|] eqn:E; [|discriminate].
    rewrite (in_box_length B x HB) in E. destruct (id_forms_sound x) as [I1 I2].
    destruct (check_levels_sound B x sp (rn_layers N) Ps [] _ _ lv HB I I I Hsp I1 I2 I2 E) as [H1 [H2 [H3 H4]]].
    rewrite <- (eval_relu_out N x lv H4) in HC |- *.
    exact (check_closes_sound lv x B sp C U cl HB H1 H2 H3 H HC).
  - simpl in H. apply andb_true_iff in H as [H1 H2].
    destruct (Qlt_le_dec c (nth i x 0)) as [Hc|Hc].
    + apply (IHge _ sp x H2); [apply in_box_set_ge; [exact HB | lra] | exact Hsp | exact HC].
    + apply (IHle _ sp x H1); [apply in_box_set_le; assumption | exact Hsp | exact HC].
  - (* a ReLU split: the pre-activation is <= 0 or >= 0 *)
    simpl in H. apply andb_true_iff in H as [H1 H2].
    assert (Hadd : forall s, side_ok s (pre_from (rn_layers N) x k i) -> splits_hold (rn_layers N) x 0 (sp ++ [(k, i, s)])).
    { intros s Hs k' i' s' Hin Hk. apply in_app_or in Hin as [Hin|[Hin|[]]]; [exact (Hsp k' i' s' Hin Hk)|].
      injection Hin as <- <- <-. rewrite Nat.sub_0_r. exact Hs. }
    destruct (Qlt_le_dec 0 (pre_from (rn_layers N) x k i)) as [Hz|Hz].
    + apply (IHge B _ x H2 HB); [apply Hadd; simpl; lra | exact HC].
    + apply (IHle B _ x H1 HB); [apply Hadd; exact Hz | exact HC].
  - simpl in H. destruct (nth_error B i) as [lu|] eqn:E; [|discriminate].
    apply Qlt_bool_true in H. destruct (in_box_nth B x i lu HB E). lra.
Qed.

(* ---- the box of an input disjunct ---- *)
Lemma single_coef_dot : forall a i q x, single_coef i a = Some q -> dot a x == q * nth i x 0.
Proof.
  induction a as [|p a IH]; intros i q x H; [destruct i; discriminate|].
  destruct i as [|i]; simpl in H.
  - destruct (forallb (Qeq_bool 0) a) eqn:E; [|discriminate]. injection H as <-.
    destruct x as [|y x]; simpl; [ring|]. rewrite (dot_all_zero a x E). ring.
  - destruct (Qeq_bool p 0) eqn:E; [|discriminate]. apply Qeq_bool_true in E.
    destruct x as [|y x]; simpl; [destruct i; ring|]. rewrite (IH i q x H), E. ring.
Qed.

Lemma gives_upper_sound : forall i hi a x y, gives_upper i hi a = true -> atom_holds a x y -> nth i x 0 <= hi.
Proof.
  unfold gives_upper, atom_holds. intros i hi a x y H Ha. apply andb_true_iff in H as [Hy H].
  destruct (single_coef i (at_x a)) as [q|] eqn:E; [|discriminate].
  apply andb_true_iff in H as [Hq Hr]. apply Qlt_bool_true in Hq. apply Qle_bool_true in Hr.
  rewrite (single_coef_dot _ _ _ x E), (dot_all_zero _ y Hy) in Ha.
  assert (q * nth i x 0 <= q * hi) by lra. apply Qmult_le_l in H; assumption.
Qed.

Lemma gives_lower_sound : forall i lo a x y, gives_lower i lo a = true -> atom_holds a x y -> lo <= nth i x 0.
Proof.
  unfold gives_lower, atom_holds. intros i lo a x y H Ha. apply andb_true_iff in H as [Hy H].
  destruct (single_coef i (at_x a)) as [q|] eqn:E; [|discriminate].
  apply andb_true_iff in H as [Hq Hr]. apply Qlt_bool_true in Hq. apply Qle_bool_true in Hr.
  rewrite (single_coef_dot _ _ _ x E), (dot_all_zero _ y Hy) in Ha.
  assert (q * nth i x 0 <= q * lo) by lra. nra.
Qed.

Lemma skipn_nth : forall (x : vec) i, (i < length x)%nat -> skipn i x = nth i x 0 :: skipn (S i) x.
Proof. induction x as [|a x IH]; intros i H; simpl in H; [lia|]. destruct i; simpl; auto. apply IH. lia. Qed.

Lemma skipn_all : forall (x : vec) i, length x = i -> skipn i x = [].
Proof. intros x i H. apply skipn_all2. lia. Qed.

Lemma box_implied_sound : forall C B i x y, box_implied C i B = true -> conj_holds C x y ->
  length x = (i + length B)%nat -> in_box B (skipn i x).
Proof.
  intros C. induction B as [|[lo hi] B IH]; intros i x y H HC Hl.
  - simpl in Hl. rewrite skipn_all by lia. constructor.
  - simpl in H, Hl. repeat rewrite andb_true_iff in H. destruct H as [[Hlo Hhi] H].
    apply existsb_exists in Hlo as [a [Ha Hlo]]. apply existsb_exists in Hhi as [a' [Ha' Hhi]].
    unfold conj_holds in HC. rewrite Forall_forall in HC.
    rewrite skipn_nth by lia. constructor.
    + split; [eapply gives_lower_sound; eauto | eapply gives_upper_sound; eauto].
    + apply (IH (S i) x y H); [unfold conj_holds; rewrite Forall_forall; exact HC | lia].
Qed.

Lemma check_steps_sound : forall N n U R steps x, check_steps N n U R steps = true -> length x = n ->
  dnf_holds R x (eval_relu N x) -> ~ dnf_holds U x (eval_relu N x).
Proof.
  intros N n U. induction R as [|C R IH]; intros steps x H Hx HR; [inversion HR|].
  destruct steps as [|[B t] steps]; simpl in H; [discriminate|].
  repeat rewrite andb_true_iff in H. destruct H as [[[HB Himp] Ht] H].
  apply Nat.eqb_eq in HB. inversion HR as [? ? HC|? ? HR']; subst.
  - apply (check_tree_sound N C U t B [] x Ht); [| intros ? ? ? [] | exact HC].
    apply (box_implied_sound C B 0 x (eval_relu N x) Himp HC). simpl. lia.
  - exact (IH steps x H Hx HR').
Qed.

(* ---- the theorem ---- *)
Theorem check_sound : forall N P steps, check N P steps = true -> vnnlib_unsat N P.
Proof.
  intros N P steps H x Hx [HR HU]. exact (check_steps_sound N _ _ _ steps x H Hx HR HU).
Qed.
