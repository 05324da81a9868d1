(* VnnSound.v: the soundness of the vnnlib-unsat checker (VnnCheck.v), proved once:
     check_sound : forall N P steps, check N P steps = true -> vnnlib_unsat N P.
   Nothing is assumed. *)
From Coq Require Import QArith Qreduction List Bool Lia Lqa.
From Symrel Require Import Semantics VnnProp VnnCheck.
Import ListNotations.
Open Scope Q_scope.
Local Arguments Qred : simpl never.

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
  - destruct v as [|y v]; simpl; [ring|]. rewrite Qred_correct. rewrite IH by lia. ring.
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
        assert (m * (s * z0 + t) <= m * relu z0) by nra. lra.
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

(* ---- a stack of levels (top first) ---- *)
Definition out (lv : list level) (x : vec) : vec := fold_right (fun lp v => eval_dense (fst lp) v) x lv.

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
  forall mu c ax, length mu = width lv (length x) -> length ax = length x ->
  back lv mu c ax B <= dot mu (out lv x) + c + dot ax x.
Proof.
  induction lv as [|[l ph] lv IH]; intros x B HB Hwf Hok mu c ax Hmu Hax.
  - simpl. rewrite Qred_correct. simpl in Hmu.
    assert (H := box_min_le (vadd mu ax) B x HB). rewrite dot_vadd_l in H by lia. lra.
  - destruct Hwf as [Hwf Hfit]. destruct Hok as [Hok Hph]. simpl in Hmu.
    destruct (fits_rows _ _ Hfit) as [Hrows Hb].
    rewrite <- (in_box_length B x HB) in Hrows.
    assert (Hz : length (zeros (width lv (length B))) = width lv (length B)) by apply length_zeros.
    assert (Hrows' : Forall (fun r => length r = length (zeros (width lv (length B)))) (dn_W l))
      by (rewrite Hz; exact Hrows).
    assert (Hv : length (out lv x) = width lv (length x)) by (apply length_out; exact Hwf).
    set (v := out lv x) in *.
    assert (Hmv : length (mat_vec (dn_W l) v) = length (dn_b l)) by (unfold mat_vec; rewrite map_length; lia).
    simpl. fold v. unfold eval_dense.
    destruct (dn_relu l) eqn:Er.
    + destruct (relax ph mu) as [nu c1] eqn:Erx.
      destruct (tmul_dot (dn_W l) nu _ v Hrows') as [T1 T2].
      assert (IH' := IH x B HB Hwf Hok (tmul (dn_W l) nu (zeros (width lv (length B))))
                       (Qred (c + c1 + dot nu (dn_b l))) ax
                       ltac:(rewrite T2, Hz, (in_box_length B x HB); reflexivity) Hax).
      fold v in IH'. assert (Hc := Qred_correct (c + c1 + dot nu (dn_b l))). rewrite T1, dot_zeros in IH'.
      assert (R := relax_sound ph (affine (dn_W l) (dn_b l) v) mu (Hph eq_refl)
                     ltac:(rewrite length_affine by exact Hb; exact Hmu)).
      rewrite Erx in R. simpl in R. unfold affine in R. rewrite dot_vadd_r in R by exact Hmv.
      unfold affine. lra.
    + destruct (tmul_dot (dn_W l) mu _ v Hrows') as [T1 T2].
      assert (IH' := IH x B HB Hwf Hok (tmul (dn_W l) mu (zeros (width lv (length B))))
                       (Qred (c + 0 + dot mu (dn_b l))) ax
                       ltac:(rewrite T2, Hz, (in_box_length B x HB); reflexivity) Hax).
      fold v in IH'. assert (Hc := Qred_correct (c + 0 + dot mu (dn_b l))). rewrite T1, dot_zeros in IH'.
      unfold affine. rewrite dot_vadd_r by exact Hmv. lra.
Qed.

Lemma lower_sound : forall lv x B r b, in_box B x -> lv_wf lv (length x) -> levels_ok lv x ->
  length r = width lv (length x) -> lower lv B r b <= dot r (out lv x) + b.
Proof.
  intros lv x B r b HB Hwf Hok Hr. unfold lower.
  assert (H := back_sound lv x B HB Hwf Hok r b (zeros (length B)) Hr
                 ltac:(rewrite length_zeros; apply in_box_length; exact HB)).
  rewrite dot_zeros in H. lra.
Qed.

Lemma upper_sound : forall lv x B r b, in_box B x -> lv_wf lv (length x) -> levels_ok lv x ->
  length r = width lv (length x) -> dot r (out lv x) + b <= upper lv B r b.
Proof.
  intros lv x B r b HB Hwf Hok Hr. unfold upper.
  assert (H := back_sound lv x B HB Hwf Hok (map Qopp r) (- b) (zeros (length B))
                 ltac:(rewrite map_length; exact Hr)
                 ltac:(rewrite length_zeros; apply in_box_length; exact HB)).
  rewrite dot_zeros, dot_opp in H. lra.
Qed.

Lemma phases_check_sound : forall lv x B, in_box B x -> lv_wf lv (length x) -> levels_ok lv x ->
  forall W b ph, Forall (fun r => length r = width lv (length x)) W ->
  phases_check lv B W b ph = true -> Forall2 phase_ok ph (affine W b (out lv x)).
Proof.
  intros lv x B HB Hwf Hok. induction W as [|r W IH]; intros b ph HW H.
  - destruct b, ph; simpl in H; try discriminate. constructor.
  - destruct b as [|c b], ph as [|p ph]; simpl in H; try discriminate.
    apply andb_true_iff in H as [Hp H]. inversion HW as [|? ? Hr HW']; subst.
    unfold affine, mat_vec in *. simpl. constructor; [|apply IH; assumption].
    assert (Hl := lower_sound lv x B r c HB Hwf Hok Hr).
    assert (Hu := upper_sound lv x B r c HB Hwf Hok Hr).
    destruct p as [| |a s t]; simpl in Hp |- *.
    + apply Qle_bool_true in Hp. lra.
    + apply Qle_bool_true in Hp. lra.
    + repeat rewrite andb_true_iff in Hp.
      destruct Hp as [[[[[[H1 H2] H3] H4] H5] H6] H7].
      apply Qle_bool_true in H1, H2, H3, H4, H5, H6, H7.
      apply (unst_ok a s t (lower lv B r c) (upper lv B r c)); assumption.
Qed.

Lemma check_levels_sound : forall B x Ls Ps below lv, in_box B x ->
  lv_wf below (length x) -> levels_ok below x -> check_levels B below Ls Ps = Some lv ->
  lv_wf lv (length x) /\ levels_ok lv x /\ out lv x = fold_left (fun v l => eval_dense l v) Ls (out below x).
Proof.
  intros B x. induction Ls as [|l Ls IH]; intros Ps below lv HB Hwf Hok H.
  - destruct Ps; simpl in H; [|discriminate]. injection H as <-. auto.
  - destruct Ps as [|ph Ps]; simpl in H; [discriminate|].
    destruct (fits l (width below (length B))) eqn:Hf; simpl in H; [|discriminate].
    rewrite (in_box_length B x HB) in Hf.
    destruct (dn_relu l) eqn:Er.
    + destruct (phases_check below B (dn_W l) (dn_b l) ph) eqn:Hp; [|discriminate].
      destruct (IH Ps ((l, ph) :: below) lv HB) as [H1 [H2 H3]]; auto.
      * simpl. split; assumption.
      * simpl. split; [exact Hok|]. intros _. destruct (fits_rows _ _ Hf) as [Hrows _].
        eapply phases_check_sound; eauto.
    + destruct (IH Ps ((l, ph) :: below) lv HB) as [H1 [H2 H3]]; auto.
      * simpl. split; assumption.
      * simpl. split; [exact Hok|]. congruence.
Qed.

Lemma check_closes_sound : forall lv x B C U cl, in_box B x -> lv_wf lv (length x) -> levels_ok lv x ->
  check_closes lv B C U cl = true -> conj_holds C x (out lv x) -> ~ dnf_holds U x (out lv x).
Proof.
  intros lv x B C U. induction U as [|D U IH]; intros cl HB Hwf Hok H HC HU.
  - inversion HU.
  - destruct cl as [|[[side k] bnd] cl]; simpl in H; [discriminate|].
    apply andb_true_iff in H as [H H']. inversion HU as [? ? HD|? ? HU']; subst.
    2: exact (IH cl HB Hwf Hok H' HC HU').
    destruct (nth_error (if side then D else C) k) as [a|] eqn:Ea; [|discriminate].
    repeat rewrite andb_true_iff in H. destruct H as [[[H1 H2] H3] H4].
    apply Nat.eqb_eq in H1. apply Nat.eqb_eq in H2. apply Qeq_bool_true in H3. apply Qlt_bool_true in H4.
    rewrite (in_box_length B x HB) in H1, H2.
    assert (Hb := back_sound lv x B HB Hwf Hok (at_y a) 0 (at_x a) H2 H1).
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

Lemma check_tree_sound : forall N C U t B x, check_tree N C U B t = true -> in_box B x ->
  conj_holds C x (eval_relu N x) -> ~ dnf_holds U x (eval_relu N x).
Proof.
  intros N C U. induction t as [Ps cl|i c le IHle ge IHge|i]; intros B x H HB HC.
  - simpl in H. destruct (check_levels B [] (rn_layers N) Ps) as [lv|] eqn:E; [|discriminate].
    destruct (check_levels_sound B x (rn_layers N) Ps [] lv HB I I E) as [H1 [H2 H3]].
    rewrite <- (eval_relu_out N x lv H3) in HC |- *.
    exact (check_closes_sound lv x B C U cl HB H1 H2 H HC).
  - simpl in H. apply andb_true_iff in H as [H1 H2].
    destruct (Qlt_le_dec c (nth i x 0)) as [Hc|Hc].
    + apply (IHge _ x H2); [apply in_box_set_ge; [exact HB | lra] | exact HC].
    + apply (IHle _ x H1); [apply in_box_set_le; assumption | exact HC].
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
  - apply (check_tree_sound N C U t B x Ht); [|exact HC].
    apply (box_implied_sound C B 0 x (eval_relu N x) Himp HC). simpl. lia.
  - exact (IH steps x H Hx HR').
Qed.

(* ---- the theorem ---- *)
Theorem check_sound : forall N P steps, check N P steps = true -> vnnlib_unsat N P.
Proof.
  intros N P steps H x Hx [HR HU]. exact (check_steps_sound N _ _ _ steps x H Hx HR HU).
Qed.
