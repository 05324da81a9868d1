(* LayeredSound.v: the soundness of the checker of layered nets (LayeredCheck.v), proved once:
     check_layered_sound : forall N P steps, check_layered N P steps = true -> layered_unsat N P.
   Nothing is assumed. *)
From Coq Require Import QArith Qround List Bool Lia Lqa NArith.
From Symrel Require Import Semantics VnnProp Layered LayeredCheck.
From Symrel Require VnnCheck VnnSound.
Import ListNotations.
Open Scope Q_scope.
Local Arguments Qred : simpl never.
Local Arguments qadd : simpl never.
Local Arguments VnnCheck.qadd : simpl never.

(* ---- numbers ---- *)
Lemma Qle_bool_true : forall a b, Qle_bool a b = true -> a <= b.
Proof. intros a b H. apply Qle_bool_iff. exact H. Qed.

Lemma Qle_bool_false : forall a b, Qle_bool a b = false -> b < a.
Proof. intros a b H. apply Qnot_le_lt. intro H'. apply Qle_bool_iff in H'. congruence. Qed.

Lemma Qlt_bool_true : forall a b, Qlt_bool a b = true -> a < b.
Proof. unfold Qlt_bool. intros a b H. apply negb_true_iff in H. apply Qle_bool_false. exact H. Qed.

Lemma Qeq_bool_true : forall a b, Qeq_bool a b = true -> a == b.
Proof. intros a b H. apply Qeq_bool_iff. exact H. Qed.

Lemma qadd_correct : forall a b, qadd a b == a + b.
Proof.
  intros [na da] [nb db]. unfold qadd. simpl. destruct (Pos.eqb da db) eqn:E.
  - apply Pos.eqb_eq in E. subst db. unfold Qeq, Qplus. simpl. rewrite Pos2Z.inj_mul. ring.
  - apply VnnSound.qadd_correct.
Qed.

Lemma qle_true : forall a b, qle a b = true -> a <= b.
Proof.
  intros [na da] [nb db] H. unfold qle in H. simpl in H. destruct (Pos.eqb da db) eqn:E.
  - apply Pos.eqb_eq in E. subst db. apply Z.leb_le in H. unfold Qle. simpl. nia.
  - apply Qle_bool_true. exact H.
Qed.

Lemma qle_false : forall a b, qle a b = false -> b < a.
Proof.
  intros [na da] [nb db] H. unfold qle in H. simpl in H. destruct (Pos.eqb da db) eqn:E.
  - apply Pos.eqb_eq in E. subst db. apply Z.leb_gt in H. unfold Qlt. simpl. nia.
  - apply Qle_bool_false. exact H.
Qed.

Lemma qlt_true : forall a b, qlt a b = true -> a < b.
Proof. unfold qlt. intros a b H. apply negb_true_iff in H. apply qle_false. exact H. Qed.

Lemma nonneg_true : forall a, nonneg a = true -> 0 <= a.
Proof. intros [n d] H. unfold nonneg in H. simpl in H. apply Z.leb_le in H. unfold Qle. simpl. lia. Qed.

Lemma nonneg_false : forall a, nonneg a = false -> a < 0.
Proof. intros [n d] H. unfold nonneg in H. simpl in H. apply Z.leb_gt in H. unfold Qlt. simpl. lia. Qed.

Lemma relu_cases : forall z, (z <= 0 /\ relu z = 0) \/ (0 < z /\ relu z = z).
Proof. exact VnnSound.relu_cases. Qed.

Lemma relu_ge0 : forall z, 0 <= relu z.
Proof. intro z. destruct (relu_cases z) as [[_ H]|[H1 H]]; rewrite H; lra. Qed.

Lemma relu_ge : forall z, z <= relu z.
Proof. intro z. destruct (relu_cases z) as [[H1 H]|[H1 H]]; rewrite H; lra. Qed.

Lemma qmax_le : forall a b z, a <= z -> b <= z -> qmax a b <= z.
Proof. exact VnnSound.qmax_le. Qed.

Lemma qmin_ge : forall a b z, z <= a -> z <= b -> z <= qmin a b.
Proof. intros a b z Ha Hb. unfold qmin. destruct (Qle_bool a b); assumption. Qed.

Lemma qmax_ge_l : forall a b, a <= qmax a b.
Proof. intros a b. unfold qmax. destruct (Qle_bool a b) eqn:E; [apply Qle_bool_true; exact E | lra]. Qed.

Lemma qmax_ge_r : forall a b, b <= qmax a b.
Proof. intros a b. unfold qmax. destruct (Qle_bool a b) eqn:E; [lra | apply Qlt_le_weak, Qle_bool_false; exact E]. Qed.

(* a linear function >= 0 at both ends of an interval is >= 0 on it *)
Lemma lin_between : forall p q lo hi z, 0 <= p * lo + q -> 0 <= p * hi + q -> lo <= z -> z <= hi -> 0 <= p * z + q.
Proof.
  intros p q lo hi z H1 H2 H3 H4. destruct (Qlt_le_dec p 0) as [Hp|Hp].
  - assert (p * hi <= p * z) by nra. lra.
  - assert (p * lo <= p * z) by nra. lra.
Qed.

Lemma over_den : forall (z : Z) d, (z # d) == inject_Z z * (1 # d).
Proof. intros z d. unfold Qeq. simpl. rewrite Z.mul_1_r. reflexivity. Qed.

Lemma down24_le : forall a, down24 a <= a.
Proof.
  intro a. unfold down24. rewrite over_den. assert (H := Qfloor_le (a * inject_Z (Zpos K2))).
  assert (Hd : 0 <= 1 # K2) by (unfold Qle; simpl; lia).
  assert (E : a == a * inject_Z (Zpos K2) * (1 # K2)) by (destruct a as [n d]; unfold Qeq, Qmult, inject_Z; simpl; rewrite !Pos2Z.inj_mul; ring).
  rewrite E at 2. apply Qmult_le_compat_r; assumption.
Qed.

Lemma up24_ge : forall a, a <= up24 a.
Proof.
  intro a. unfold up24. rewrite over_den. assert (H := Qle_ceiling (a * inject_Z (Zpos K2))).
  assert (Hd : 0 <= 1 # K2) by (unfold Qle; simpl; lia).
  assert (E : a == a * inject_Z (Zpos K2) * (1 # K2)) by (destruct a as [n d]; unfold Qeq, Qmult, inject_Z; simpl; rewrite !Pos2Z.inj_mul; ring).
  rewrite E at 1. apply Qmult_le_compat_r; assumption.
Qed.

Lemma pos_part_lo : forall a z, a <= z -> pos_part a <= relu z.
Proof.
  intros a z H. unfold pos_part. destruct (nonneg a) eqn:E.
  - apply nonneg_true in E. destruct (relu_cases z) as [[H1 H2]|[H1 H2]]; rewrite H2; lra.
  - assert (E0 : 0 # Qden a == 0) by reflexivity. rewrite E0. apply relu_ge0.
Qed.

Lemma pos_part_hi : forall a z, z <= a -> relu z <= pos_part a.
Proof.
  intros a z H. unfold pos_part. destruct (nonneg a) eqn:E.
  - apply nonneg_true in E. destruct (relu_cases z) as [[H1 H2]|[H1 H2]]; rewrite H2; lra.
  - apply nonneg_false in E. assert (E0 : 0 # Qden a == 0) by reflexivity. rewrite E0.
    destruct (relu_cases z) as [[H1 H2]|[H1 H2]]; rewrite H2; lra.
Qed.

(* ---- maps from positive keys ---- *)
Lemma tget_tset : forall {A} p (a : A) t q, tget (tset p a t) q = if Pos.eqb p q then Some a else tget t q.
Proof.
  induction p as [p IH|p IH|]; intros a t q; destruct t as [|l o r]; destruct q as [q|q|]; simpl;
    try reflexivity; try (rewrite IH; destruct (Pos.eqb p q); simpl; auto; destruct q; reflexivity).
Qed.

Lemma qget_tset : forall p a t q, qget (tset p a t) q = if Pos.eqb p q then a else qget t q.
Proof. intros p a t q. unfold qget. rewrite tget_tset. destruct (Pos.eqb p q); reflexivity. Qed.

Lemma qget_TL : forall p, qget TL p = 0.
Proof. reflexivity. Qed.

Lemma qget_tadd : forall p c t q, qget (tadd p c t) q == qget t q + (if Pos.eqb p q then c else 0).
Proof.
  intros p c t q. unfold tadd. rewrite qget_tset. destruct (Pos.eqb p q) eqn:E.
  - apply Pos.eqb_eq in E. subst. rewrite qadd_correct. reflexivity.
  - ring.
Qed.

Lemma of_list_from_get : forall {A} (l : list A) p t q,
  tget (of_list_from p l t) q =
  if ((Pos.to_nat p <=? Pos.to_nat q) && (Pos.to_nat q <? Pos.to_nat p + length l))%nat
  then nth_error l (Pos.to_nat q - Pos.to_nat p) else tget t q.
Proof.
  induction l as [|a l IH]; intros p t q; simpl.
  - destruct ((Pos.to_nat p <=? Pos.to_nat q) && (Pos.to_nat q <? Pos.to_nat p + 0))%nat eqn:E; [|reflexivity].
    apply andb_true_iff in E as [E1 E]. apply Nat.leb_le in E1. apply Nat.ltb_lt in E. lia.
  - rewrite IH, tget_tset. rewrite Pos2Nat.inj_succ.
    destruct (Pos.eqb p q) eqn:Epq.
    + apply Pos.eqb_eq in Epq. subst q.
      replace ((S (Pos.to_nat p) <=? Pos.to_nat p)%nat) with false by (symmetry; apply Nat.leb_gt; lia).
      replace ((Pos.to_nat p <=? Pos.to_nat p) && (Pos.to_nat p <? Pos.to_nat p + S (length l)))%nat with true
        by (symmetry; apply andb_true_iff; split; [apply Nat.leb_le | apply Nat.ltb_lt]; lia).
      rewrite Nat.sub_diag. reflexivity.
    + assert (Hne : Pos.to_nat p <> Pos.to_nat q) by (intro H; apply Pos2Nat.inj in H; subst; rewrite Pos.eqb_refl in Epq; discriminate).
      destruct (Nat.leb_spec (S (Pos.to_nat p)) (Pos.to_nat q)) as [H1|H1];
      destruct (Nat.ltb_spec (Pos.to_nat q) (S (Pos.to_nat p) + length l)) as [H2|H2];
      destruct (Nat.leb_spec (Pos.to_nat p) (Pos.to_nat q)) as [H3|H3];
      destruct (Nat.ltb_spec (Pos.to_nat q) (Pos.to_nat p + S (length l))) as [H4|H4]; simpl; try lia; try reflexivity.
      replace (Pos.to_nat q - Pos.to_nat p)%nat with (S (Pos.to_nat q - S (Pos.to_nat p))) by lia. reflexivity.
Qed.

Definition pos (i : nat) : positive := Pos.of_succ_nat i.

Lemma pos_succ : forall i, Pos.succ (pos i) = pos (S i).
Proof. reflexivity. Qed.

Lemma of_list_get : forall {A} (l : list A) i, tget (of_list l) (pos i) = nth_error l i.
Proof.
  intros A l i. unfold of_list, pos. rewrite of_list_from_get. rewrite SuccNat2Pos.id_succ. simpl.
  destruct (Nat.ltb_spec (S i) (S (length l))) as [H|H]; [rewrite Nat.sub_0_r; reflexivity|].
  symmetry. apply nth_error_None. lia.
Qed.

Lemma key_pos : forall j, key j = pos (N.to_nat j).
Proof.
  intros [|p]; [reflexivity|]. unfold key, pos. simpl. rewrite Pos2SuccNat.id_succ. reflexivity.
Qed.

Lemma to_nat_pos : forall i, Pos.to_nat (pos i) = S i.
Proof. intro i. apply SuccNat2Pos.id_succ. Qed.

(* ---- coefficient maps applied to vectors ---- *)
Fixpoint tdot_from (t : tr Q) (p : positive) (v : vec) : Q :=
  match v with [] => 0 | a :: v' => qget t p * a + tdot_from t (Pos.succ p) v' end.
Definition tdot (t : tr Q) (v : vec) : Q := tdot_from t 1 v.

Lemma tdot_from_tadd : forall v q c t p, tdot_from (tadd q c t) p v ==
  tdot_from t p v + (if (Pos.to_nat p <=? Pos.to_nat q)%nat then c * nth (Pos.to_nat q - Pos.to_nat p) v 0 else 0).
Proof.
  induction v as [|a v IH]; intros q c t p; simpl.
  - destruct (Pos.to_nat p <=? Pos.to_nat q)%nat; [destruct (Pos.to_nat q - Pos.to_nat p)%nat|]; ring.
  - rewrite IH, qget_tadd. rewrite Pos2Nat.inj_succ. destruct (Pos.eqb q p) eqn:E.
    + apply Pos.eqb_eq in E. subst q. rewrite Nat.leb_refl, Nat.sub_diag.
      replace ((S (Pos.to_nat p) <=? Pos.to_nat p)%nat) with false by (symmetry; apply Nat.leb_gt; lia). ring.
    + assert (Hne : Pos.to_nat p <> Pos.to_nat q) by (intro H; apply Pos2Nat.inj in H; subst; rewrite Pos.eqb_refl in E; discriminate).
      destruct (Nat.leb_spec (Pos.to_nat p) (Pos.to_nat q)) as [H1|H1];
      destruct (Nat.leb_spec (S (Pos.to_nat p)) (Pos.to_nat q)) as [H2|H2]; try lia.
      * replace (Pos.to_nat q - Pos.to_nat p)%nat with (S (Pos.to_nat q - S (Pos.to_nat p))) by lia. simpl. ring.
      * ring.
Qed.

Lemma tdot_tadd : forall v i c t, tdot (tadd (pos i) c t) v == tdot t v + c * nth i v 0.
Proof.
  intros v i c t. unfold tdot. rewrite tdot_from_tadd. rewrite to_nat_pos. simpl Pos.to_nat.
  replace ((1 <=? S i)%nat) with true by (symmetry; apply Nat.leb_le; lia). simpl. rewrite Nat.sub_0_r. reflexivity.
Qed.

Lemma tdot_tadd_key : forall v j c t, tdot (tadd (key j) c t) v == tdot t v + c * at_ v j.
Proof. intros v j c t. rewrite key_pos. apply tdot_tadd. Qed.

Lemma tdot_from_ext : forall v t t' p, (forall q, qget t q == qget t' q) -> tdot_from t p v == tdot_from t' p v.
Proof. induction v as [|a v IH]; intros t t' p H; simpl; [reflexivity|]. rewrite H, (IH t t' _ H). reflexivity. Qed.

Lemma tdot_from_TL : forall v p, tdot_from TL p v == 0.
Proof. induction v as [|a v IH]; intros p; simpl; [reflexivity|]. rewrite IH. unfold qget. simpl. ring. Qed.

Lemma tdot_TL : forall v, tdot TL v == 0.
Proof. intro v. apply tdot_from_TL. Qed.

Lemma tdot_unit : forall v j a, tdot (tset (key j) a TL) v == a * at_ v j.
Proof.
  intros v j a. unfold tdot. rewrite (tdot_from_ext v (tset (key j) a TL) (tadd (key j) a TL) 1).
  - fold (tdot (tadd (key j) a TL) v). rewrite tdot_tadd_key, tdot_TL. ring.
  - intro q. rewrite qget_tadd, qget_tset, qget_TL. destruct (Pos.eqb (key j) q); ring.
Qed.

Lemma tdot_from_of_list : forall v a i, tdot_from (of_list a) (pos i) v == dot (skipn i a) v.
Proof.
  induction v as [|y v IH]; intros a i; simpl.
  - destruct (skipn i a); reflexivity.
  - rewrite pos_succ, IH. unfold qget. rewrite of_list_get.
    destruct (nth_error a i) as [b|] eqn:E.
    + assert (Hs : skipn i a = b :: skipn (S i) a).
      { revert i E. induction a as [|c a IHa]; intros [|i] E; simpl in *; try discriminate.
        - injection E as <-. reflexivity.
        - apply IHa. exact E. }
      rewrite Hs. simpl. reflexivity.
    + apply nth_error_None in E. rewrite !skipn_all2 by lia. simpl. ring.
Qed.

Lemma tdot_of_list : forall a v, tdot (of_list a) v == dot a v.
Proof. intros a v. exact (tdot_from_of_list v a 0). Qed.

(* ---- bounds of vectors ---- *)
Lemma in_box_nth : forall B x i lu, in_box B x -> nth_error B i = Some lu -> fst lu <= nth i x 0 /\ nth i x 0 <= snd lu.
Proof. exact VnnSound.in_box_nth. Qed.

Lemma in_box_length : forall B x, in_box B x -> length B = length x.
Proof. exact VnnSound.in_box_length. Qed.

(* every entry j of v within the bounds at key j + 1 (0 where there is none) *)
Definition tbox (t : tr (Q * Q)) (v : vec) : Prop := forall j, fst (bget t j) <= at_ v j /\ at_ v j <= snd (bget t j).

Lemma tbox_of_list : forall bn v, in_box bn v -> tbox (of_list bn) v.
Proof.
  intros bn v H j. unfold bget, at_. rewrite key_pos, of_list_get.
  destruct (nth_error bn (N.to_nat j)) as [lu|] eqn:E.
  - exact (in_box_nth bn v _ lu H E).
  - apply nth_error_None in E. rewrite (in_box_length bn v H) in E. rewrite nth_overflow by exact E. simpl. lra.
Qed.

Lemma in_box_map : forall {A} (f : A -> Q * Q) (g : A -> Q) (l : list A), (forall a, In a l -> fst (f a) <= g a /\ g a <= snd (f a)) ->
  in_box (map f l) (map g l).
Proof.
  intros A f g. induction l as [|a l IH]; intros H; simpl; constructor.
  - apply H. left. reflexivity.
  - apply IH. intros b Hb. apply H. right. exact Hb.
Qed.

Lemma in_box_nth_le : forall B x i, in_box B x -> (i < length B)%nat -> fst (nth i B (0, 0)) <= nth i x 0 /\ nth i x 0 <= snd (nth i B (0, 0)).
Proof.
  intros B x i H Hi. apply (in_box_nth B x i). exact H. apply nth_error_nth'. exact Hi.
Qed.

Lemma Zle_bool_Q : forall w, Z.leb 0 w = true -> 0 <= inject_Z w.
Proof. intros w H. change 0 with (inject_Z 0). rewrite <- Zle_Qle. apply Z.leb_le. exact H. Qed.

Lemma Zle_bool_Q_false : forall w, Z.leb 0 w = false -> inject_Z w < 0.
Proof. intros w H. change 0 with (inject_Z 0). rewrite <- Zlt_Qlt. apply Z.leb_gt. exact H. Qed.

Lemma row_bounds_sound : forall t v r, tbox t v -> fst (row_bounds t r) <= row_dot r v /\ row_dot r v <= snd (row_bounds t r).
Proof.
  intros t v r Ht. induction r as [|[j w] r IH]; simpl; [unfold row_dot; simpl; lra|]. destruct IH as [IH1 IH2].
  unfold row_dot in *. simpl. destruct (Ht j) as [H1 H2]. destruct (Z.leb 0 w) eqn:E; simpl; rewrite !qadd_correct.
  - apply Zle_bool_Q in E. split; [assert (inject_Z w * fst (bget t j) <= inject_Z w * at_ v j) by nra
                                  | assert (inject_Z w * at_ v j <= inject_Z w * snd (bget t j)) by nra]; lra.
  - apply Zle_bool_Q_false in E. split; [assert (inject_Z w * snd (bget t j) <= inject_Z w * at_ v j) by nra
                                        | assert (inject_Z w * at_ v j <= inject_Z w * fst (bget t j)) by nra]; lra.
Qed.

Lemma den_pos : forall D, 0 <= 1 # D.
Proof. intro D. unfold Qle. simpl. lia. Qed.

Lemma aff_bounds_sound : forall D rows b bn v, in_box bn v ->
  in_box (aff_bounds D (of_list bn) rows b) (eval_lop (LAffine D rows b) v).
Proof.
  intros D rows b bn v H. apply in_box_map. intros [r c] _. simpl.
  destruct (row_bounds_sound (of_list bn) v r (tbox_of_list bn v H)) as [H1 H2]. simpl in H1, H2.
  rewrite !qadd_correct. split; apply Qmult_le_compat_r; try apply den_pos; lra.
Qed.

(* ---- lines of a ReLU entry ---- *)
Lemma relu_line_ok_sound : forall a s t lo hi z, relu_line_ok (a, s, t) lo hi = true -> lo <= z -> z <= hi ->
  a * z <= relu z /\ relu z <= s * z + t.
Proof.
  intros a s t lo hi z H Hl Hh. unfold relu_line_ok in H. repeat rewrite andb_true_iff in H.
  destruct H as [[[H1 H2] H3] H4]. apply Qle_bool_true in H1, H2, H3, H4.
  assert (R1 := relu_ge0 lo). assert (R2 := relu_ge lo). assert (R3 := relu_ge0 hi). assert (R4 := relu_ge hi).
  split.
  - destruct (relu_cases z) as [[Z1 Z2]|[Z1 Z2]]; rewrite Z2; nra.
  - destruct (relu_cases z) as [[Z1 Z2]|[Z1 Z2]]; rewrite Z2.
    + assert (0 <= s * z + t) by (apply (lin_between s t lo hi z); lra). lra.
    + assert (0 <= (s - 1) * z + t) by (apply (lin_between (s - 1) t lo hi z); lra). lra.
Qed.

(* ---- the largest element of a list ---- *)
Lemma fold_qmax_ge_init : forall r a, a <= fold_left qmax r a.
Proof.
  induction r as [|b r IH]; intros a; simpl; [lra|]. eapply Qle_trans; [apply qmax_ge_l|]. apply IH.
Qed.

Lemma fold_qmax_ge : forall r a b, In b r -> b <= fold_left qmax r a.
Proof.
  induction r as [|c r IH]; intros a b H; simpl in *; [contradiction|]. destruct H as [<-|H].
  - eapply Qle_trans; [apply qmax_ge_r|]. apply fold_qmax_ge_init.
  - apply IH. exact H.
Qed.

Lemma fold_qmax_le : forall r a c, a <= c -> (forall b, In b r -> b <= c) -> fold_left qmax r a <= c.
Proof.
  induction r as [|b r IH]; intros a c Ha H; simpl; [exact Ha|]. apply IH.
  - apply qmax_le; [exact Ha | apply H; left; reflexivity].
  - intros d Hd. apply H. right. exact Hd.
Qed.

Lemma max_list_ge : forall l a, In a l -> a <= max_list l.
Proof.
  intros [|b l] a H; simpl in *; [contradiction|]. destruct H as [<-|H]; [apply fold_qmax_ge_init | apply fold_qmax_ge; exact H].
Qed.

Lemma max_list_le : forall l c, l <> [] -> (forall a, In a l -> a <= c) -> max_list l <= c.
Proof.
  intros [|b l] c Hn H; simpl; [congruence|]. apply fold_qmax_le.
  - apply H. left. reflexivity.
  - intros d Hd. apply H. right. exact Hd.
Qed.

Lemma qmax'_ge_l : forall a b, a <= qmax' a b.
Proof. intros a b. unfold qmax'. destruct (qle a b) eqn:E; [apply qle_true; exact E | lra]. Qed.

Lemma qmax'_ge_r : forall a b, b <= qmax' a b.
Proof. intros a b. unfold qmax'. destruct (qle a b) eqn:E; [lra | apply Qlt_le_weak, qle_false; exact E]. Qed.

Lemma qmax'_le : forall a b z, a <= z -> b <= z -> qmax' a b <= z.
Proof. intros a b z Ha Hb. unfold qmax'. destruct (qle a b); assumption. Qed.

Lemma fold_qmax'_ge_init : forall r a, a <= fold_left qmax' r a.
Proof.
  induction r as [|b r IH]; intros a; simpl; [lra|]. eapply Qle_trans; [apply qmax'_ge_l|]. apply IH.
Qed.

Lemma fold_qmax'_ge : forall r a b, In b r -> b <= fold_left qmax' r a.
Proof.
  induction r as [|c r IH]; intros a b H; simpl in *; [contradiction|]. destruct H as [<-|H].
  - eapply Qle_trans; [apply qmax'_ge_r|]. apply fold_qmax'_ge_init.
  - apply IH. exact H.
Qed.

Lemma fold_qmax'_le : forall r a c, a <= c -> (forall b, In b r -> b <= c) -> fold_left qmax' r a <= c.
Proof.
  induction r as [|b r IH]; intros a c Ha H; simpl; [exact Ha|]. apply IH.
  - apply qmax'_le; [exact Ha | apply H; left; reflexivity].
  - intros d Hd. apply H. right. exact Hd.
Qed.

Lemma qmaxl_ge : forall l a, In a l -> a <= qmaxl l.
Proof.
  intros [|b l] a H; simpl in *; [contradiction|]. destruct H as [<-|H]; [apply fold_qmax'_ge_init | apply fold_qmax'_ge; exact H].
Qed.

Lemma qmaxl_le : forall l c, l <> [] -> (forall a, In a l -> a <= c) -> qmaxl l <= c.
Proof.
  intros [|b l] c Hn H; simpl; [congruence|]. apply fold_qmax'_le.
  - apply H. left. reflexivity.
  - intros d Hd. apply H. right. exact Hd.
Qed.

Lemma In_map_nth : forall {A B} (f : A -> B) (l : list A) d y, In y (map f l) -> exists m, (m < length l)%nat /\ y = f (nth m l d).
Proof.
  intros A B f l d y H. apply in_map_iff in H as [x [<- Hx]]. apply In_nth with (d := d) in Hx as [m [Hm <-]].
  exists m. split; [exact Hm | reflexivity].
Qed.

Lemma drop_nth_In : forall {A} (l : list A) k m d, m <> k -> (m < length l)%nat -> In (nth m l d) (drop_nth k l).
Proof.
  induction l as [|a l IH]; intros k m d Hmk Hm; simpl in Hm; [lia|].
  destruct m as [|m], k as [|k]; simpl; try lia.
  - left. reflexivity.
  - apply nth_In. lia.
  - right. apply IH; lia.
Qed.

Lemma nth_map_bget : forall t g m, (m < length g)%nat -> nth m (map (bget t) g) (0, 0) = bget t (nth m g 0%N).
Proof.
  intros t g m H. rewrite nth_indep with (d' := bget t 0%N) by (rewrite map_length; exact H). apply map_nth.
Qed.

(* the split constraint of a group won by p *)
Definition won (v : vec) (g : list N) (p : nat) : Prop :=
  forall m, (m < length g)%nat -> at_ v (nth m g 0%N) <= at_ v (nth p g 0%N).

Lemma max_line_ok_sound : forall t v g w low top s tt, tbox t v -> (forall p, w = Some p -> won v g p) ->
  max_line_ok (map (bget t) g) w (low, top, s, tt) = true ->
  (low < length g)%nat /\ (top < length g)%nat /\ max_list (map (at_ v) g) <= s * at_ v (nth top g 0%N) + tt.
Proof.
  intros t v g w low top s tt Ht Hw H. unfold max_line_ok in H. rewrite map_length in H.
  repeat rewrite andb_true_iff in H. destruct H as [[H1 H2] H3].
  apply Nat.ltb_lt in H1, H2. split; [exact H1|]. split; [exact H2|].
  assert (Hne : map (at_ v) g <> []) by (destruct g; simpl in *; [lia | discriminate]).
  apply max_list_le; [exact Hne|]. intros a Ha. apply (In_map_nth _ _ 0%N) in Ha as [m [Hm ->]].
  apply orb_true_iff in H3 as [H3|H3].
  - destruct w as [p|]; [|discriminate]. repeat rewrite andb_true_iff in H3. destruct H3 as [[E1 E2] E3].
    apply Nat.eqb_eq in E1. subst p. apply Qeq_bool_true in E2, E3. rewrite E2, E3.
    assert (Hm' := Hw top eq_refl m Hm). lra.
  - rewrite (nth_map_bget t g top H2) in H3. cbv zeta in H3. repeat rewrite andb_true_iff in H3. destruct H3 as [[E1 E2] E3].
    apply Qle_bool_true in E1, E2. destruct (Ht (nth top g 0%N)) as [T1 T2].
    destruct (Nat.eq_dec m top) as [->|Hmt];
    set (lt := fst (bget t (nth top g 0%N))) in *; set (ht := snd (bget t (nth top g 0%N))) in *;
    set (xt := at_ v (nth top g 0%N)) in *.
    + assert (0 <= (s - 1) * xt + tt) by (apply (lin_between (s - 1) tt lt ht xt); lra). lra.
    + rewrite forallb_forall in E3.
      assert (Hin : In (snd (nth m (map (bget t) g) (0, 0))) (map snd (drop_nth top (map (bget t) g)))).
      { apply in_map. apply drop_nth_In; [exact Hmt | rewrite map_length; exact Hm]. }
      specialize (E3 _ Hin). rewrite (nth_map_bget t g m Hm) in E3. apply andb_true_iff in E3 as [F1 F2].
      apply Qle_bool_true in F1, F2. destruct (Ht (nth m g 0%N)) as [_ T3].
      assert (0 <= s * xt + (tt - snd (bget t (nth m g 0%N)))) by (apply (lin_between s _ lt ht xt); lra). lra.
Qed.

Lemma max_range_sound : forall t v g w, tbox t v -> g <> [] -> (forall p, w = Some p -> won v g p /\ (p < length g)%nat) ->
  fst (max_range (map (bget t) g) w) <= max_list (map (at_ v) g) /\ max_list (map (at_ v) g) <= snd (max_range (map (bget t) g) w).
Proof.
  intros t v g w Ht Hg Hw. unfold max_range. simpl.
  assert (Hne : forall {A} (f : N -> A), map f g <> []) by (intros A f; destruct g; simpl; congruence).
  split.
  - apply qmaxl_le; [rewrite map_map; apply Hne|]. intros a Ha. rewrite map_map in Ha.
    apply (In_map_nth _ _ 0%N) in Ha as [m [Hm ->]]. destruct (Ht (nth m g 0%N)) as [T1 _].
    eapply Qle_trans; [exact T1|]. apply max_list_ge. apply in_map. apply nth_In. exact Hm.
  - destruct w as [p|].
    + destruct (Hw p eq_refl) as [Hwon Hp]. rewrite (nth_map_bget t g p Hp).
      destruct (Ht (nth p g 0%N)) as [_ T2]. eapply Qle_trans; [|exact T2].
      apply max_list_le; [apply Hne|]. intros a Ha. apply (In_map_nth _ _ 0%N) in Ha as [m [Hm ->]]. apply Hwon. exact Hm.
    + apply max_list_le; [apply Hne|]. intros a Ha. apply (In_map_nth _ _ 0%N) in Ha as [m [Hm ->]].
      destruct (Ht (nth m g 0%N)) as [_ T2]. eapply Qle_trans; [exact T2|]. apply qmaxl_ge.
      rewrite map_map. apply (in_map (fun x => snd (bget t x))). apply nth_In. exact Hm.
Qed.

(* ---- a leaf's levels ---- *)
Definition side_ok (s : bool) (z : Q) : Prop := if s then 0 <= z else z <= 0.

(* the output of the levels (top first) at the input x *)
Definition outv (lv : list level) (x : vec) : vec := fold_right (fun l v => eval_lop (level_op l) v) x lv.

Definition rline (ln : Q * Q * Q) (z : Q) : Prop := let '(a, s, t) := ln in a * z <= relu z /\ relu z <= s * z + t.

Definition mline (v : vec) (g : list N) (ln : nat * nat * Q * Q) : Prop :=
  let '(low, top, s, t) := ln in
  (low < length g)%nat /\ (top < length g)%nat /\ max_list (map (at_ v) g) <= s * at_ v (nth top g 0%N) + t.

(* at the input v of level k: the sides of the ReLU splits of op k hold, and an affine level's
   bounds, a ReLU level's lines, a max level's lines and the max splits of op k hold *)
Definition level_ok (l : level) (t : tr (Q * Q)) (k : nat) (sp : list lsplit) (v : vec) : Prop :=
  (forall i s, In (SR k i s) sp -> side_ok s (at_ v i)) /\
  match l with
  | VAff _ _ _ => tbox t v
  | VRelu lines => Forall2 rline lines v
  | VMax groups lines => Forall2 (mline v) groups lines /\ (forall g p, In (SM k g p) sp -> won v (nth (N.to_nat g) groups []) p)
  end.

Fixpoint lv_ok (lv : list level) (inb : list (tr (Q * Q))) (sp : list lsplit) (x : vec) : Prop :=
  match lv with
  | [] => True
  | l :: rest => lv_ok rest (tl inb) sp x /\ level_ok l (hd TL inb) (length rest) sp (outv rest x)
  end.

Lemma lv_ok_nil : forall lv inb sp x, lv_ok lv inb sp x -> lv_ok lv inb [] x.
Proof.
  induction lv as [|l lv IH]; intros inb sp x H; simpl in *; auto. destruct H as [H1 [H2 H3]].
  split; [exact (IH _ _ _ H1)|]. split; [intros ? ? []|]. destruct l; auto. destruct H3 as [H3 _]. split; [exact H3|]. intros ? ? [].
Qed.

(* ---- an affine level backwards ---- *)
Lemma scatter_sound : forall u vd r acc, tdot (scatter vd r acc) u == tdot acc u + vd * row_dot r u.
Proof.
  intros u vd. induction r as [|[j w] r IH]; intros acc; simpl; [ring|]. rewrite IH, tdot_tadd_key. unfold row_dot. simpl. ring.
Qed.

Lemma aff_back_sound : forall u D mu rows b i acc c nu c', aff_back D rows b mu (pos i) acc c = (nu, c') ->
  tdot nu u + c' == tdot acc u + c + tdot_from mu (pos i) (eval_lop (LAffine D rows b) u).
Proof.
  intros u D mu. induction rows as [|r rows IH]; intros b i acc c nu c' H; destruct b as [|bi b]; simpl in H |- *;
    try (injection H as <- <-; ring).
  rewrite pos_succ in H |- *. destruct (Qeq_bool (qget mu (pos i)) 0) eqn:E.
  - apply Qeq_bool_true in E. rewrite (IH b (S i) acc c nu c' H). rewrite E. simpl. ring.
  - rewrite (IH b (S i) _ _ nu c' H). rewrite scatter_sound, qadd_correct. simpl. ring.
Qed.

(* ---- a max level backwards ---- *)
Lemma max_back_sound : forall u pc mu groups lines i acc c nu c', Forall2 (mline u) groups lines ->
  max_back groups lines pc mu (pos i) acc c = (nu, c') ->
  tdot nu u + c' <= tdot acc u + c + tdot_from mu (pos i) (eval_lop (LMax groups) u).
Proof.
  intros u pc mu groups lines i acc c nu c' H. revert i acc c. induction H as [|g [[[low top] s] t] groups lines Hg H IH];
    intros i acc c E; simpl in E |- *; [injection E as <- <-; lra|].
  rewrite pos_succ in E |- *. destruct Hg as [Hlow [Htop Hup]]. set (y := max_list (map (at_ u) g)) in *.
  set (v := qget mu (pos i)) in *. destruct (Qeq_bool v 0) eqn:E0.
  - apply Qeq_bool_true in E0. assert (R := IH (S i) acc c E). simpl in R. rewrite ?pos_succ in R. rewrite E0. lra.
  - destruct (Qle_bool 0 v) eqn:E1.
    + apply Qle_bool_true in E1. assert (R := IH (S i) _ c E). simpl in R. rewrite ?pos_succ in R. rewrite tdot_tadd_key in R.
      set (low' := match tget pc (pos i) with Some q => if Nat.ltb q (length g) then q else low | None => low end) in *.
      assert (Hl : (low' < length g)%nat).
      { unfold low'. destruct (tget pc (pos i)) as [q|]; [destruct (Nat.ltb_spec q (length g))|]; auto. }
      assert (Hy : at_ u (nth low' g 0%N) <= y) by (apply max_list_ge; apply in_map; apply nth_In; exact Hl).
      assert (v * at_ u (nth low' g 0%N) <= v * y) by nra. lra.
    + apply Qle_bool_false in E1. assert (R := IH (S i) _ _ E). simpl in R. rewrite ?pos_succ in R. rewrite tdot_tadd_key, qadd_correct in R.
      assert (v * (s * at_ u (nth top g 0%N) + t) <= v * y) by nra. lra.
Qed.

(* ---- a ReLU level backwards ---- *)
Fixpoint hsum (r : list (N * Z)) (a : list Q) (w : vec) : Q :=
  match r, a with (j, _) :: r', aj :: a' => aj * at_ w j + hsum r' a' w | _, _ => 0 end.

Lemma hull_scatter_sound : forall w v r a pend, tdot (hull_scatter v r a pend) w == tdot pend w + v * hsum r a w.
Proof.
  intros w v. induction r as [|[j x] r IH]; intros a pend; destruct a as [|aj a]; simpl; try ring.
  rewrite IH, tdot_tadd_key. ring.
Qed.

Lemma hull_min_false : forall t w r a D, tbox t w -> hull_min t r a D false <= hsum r a w.
Proof.
  intros t w r a D Ht. revert a. induction r as [|[j x] r IH]; intros a; destruct a as [|aj a]; simpl; try lra.
  specialize (IH a). destruct (Ht j) as [T1 T2]. destruct (Qle_bool 0 aj) eqn:E.
  - apply Qle_bool_true in E. assert (aj * fst (bget t j) <= aj * at_ w j) by nra. lra.
  - apply Qle_bool_false in E. assert (aj * snd (bget t j) <= aj * at_ w j) by nra. lra.
Qed.

Lemma hull_min_true : forall t w r a D, tbox t w -> length r = length a ->
  hull_min t r a D true <= hsum r a w - row_dot r w * (1 # D).
Proof.
  intros t w r a D Ht. revert a. induction r as [|[j x] r IH]; intros a Hl; destruct a as [|aj a]; simpl in *; try discriminate;
    try (unfold row_dot; simpl; lra).
  specialize (IH a ltac:(lia)). destruct (Ht j) as [T1 T2]. unfold row_dot in *. simpl.
  set (f := aj - inject_Z x * (1 # D)) in *. destruct (Qle_bool 0 f) eqn:E.
  - apply Qle_bool_true in E. assert (f * fst (bget t j) <= f * at_ w j) by nra. unfold f in *. lra.
  - apply Qle_bool_false in E. assert (f * snd (bget t j) <= f * at_ w j) by nra. unfold f in *. lra.
Qed.

Lemma nth_error_combine : forall {A B} (l : list A) (m : list B) i a b, nth_error l i = Some a -> nth_error m i = Some b ->
  nth_error (combine l m) i = Some (a, b).
Proof.
  induction l as [|x l IH]; intros m i a b H1 H2; destruct m as [|y m]; destruct i; simpl in *; try discriminate.
  - injection H1 as <-. injection H2 as <-. reflexivity.
  - apply IH; assumption.
Qed.

(* a close's line over the input w of the affine op below, when it passes hull_ok, is above relu *)
Lemma hull_sound : forall D rows b t0 w i r bi ah ch, tbox t0 w ->
  tget (of_list rows) (pos i) = Some r -> tget (of_list b) (pos i) = Some bi -> hull_ok t0 r bi D ah ch = true ->
  relu (nth i (eval_lop (LAffine D rows b) w) 0) <= hsum r ah w + ch.
Proof.
  intros D rows b t0 w i r bi ah ch Ht Hr Hb H. rewrite of_list_get in Hr. rewrite of_list_get in Hb.
  simpl. erewrite nth_error_nth; [|apply map_nth_error; apply nth_error_combine; eassumption]. simpl.
  unfold hull_ok in H. repeat rewrite andb_true_iff in H. destruct H as [[H1 H2] H3].
  apply Nat.eqb_eq in H1. apply Qle_bool_true in H2, H3.
  assert (A1 := hull_min_false t0 w r ah D Ht). assert (A2 := hull_min_true t0 w r ah D Ht H1).
  assert (E : (row_dot r w + inject_Z bi) * (1 # D) == row_dot r w * (1 # D) + inject_Z bi * (1 # D)) by ring.
  destruct (relu_cases ((row_dot r w + inject_Z bi) * (1 # D))) as [[Z1 Z2]|[Z1 Z2]]; rewrite Z2; lra.
Qed.

Definition hull_facts (ba : option below_aff) (z w : vec) : Prop :=
  match ba with
  | Some (D, rt, bt, t0) => forall i r bi ah ch, tget rt (pos i) = Some r -> tget bt (pos i) = Some bi ->
      hull_ok t0 r bi D ah ch = true -> relu (nth i z 0) <= hsum r ah w + ch
  | None => True
  end.

Lemma relu_neg_sound : forall z w hl ba i v s t acc pend c acc' pend' c', hull_facts ba z w -> v < 0 ->
  relu (nth i z 0) <= s * nth i z 0 + t -> relu_neg hl ba (pos i) v s t acc pend c = (acc', pend', c') ->
  tdot acc' z + tdot pend' w + c' <= tdot acc z + tdot pend w + c + v * relu (nth i z 0).
Proof.
  intros z w hl ba i v s t acc pend c acc' pend' c' Hh Hv Hl E. unfold relu_neg in E.
  assert (Chord : (tadd (pos i) (v * s) acc, pend, qadd c (v * t)) = (acc', pend', c') ->
                  tdot acc' z + tdot pend' w + c' <= tdot acc z + tdot pend w + c + v * relu (nth i z 0)).
  { intro E'. injection E' as <- <- <-. rewrite tdot_tadd, qadd_correct.
    assert (v * (s * nth i z 0 + t) <= v * relu (nth i z 0)) by nra. lra. }
  destruct (tget hl (pos i)) as [[ah ch]|]; [|exact (Chord E)].
  destruct ba as [[[[D rt] bt] t0]|]; [|exact (Chord E)].
  destruct (tget rt (pos i)) as [r|] eqn:Er; [|exact (Chord E)].
  destruct (tget bt (pos i)) as [bi|] eqn:Eb; [|exact (Chord E)].
  destruct (hull_ok t0 r bi D ah ch) eqn:Eo; [|exact (Chord E)].
  injection E as <- <- <-. rewrite hull_scatter_sound, qadd_correct.
  assert (H := Hh i r bi ah ch Er Eb Eo). assert (v * (hsum r ah w + ch) <= v * relu (nth i z 0)) by nra. lra.
Qed.

Lemma skipn_cons : forall (z : vec) i a r, skipn i z = a :: r -> nth i z 0 = a /\ skipn (S i) z = r.
Proof.
  induction z as [|b z IH]; intros i a r H; destruct i; simpl in *; try discriminate.
  - injection H as <- <-. auto.
  - apply IH. exact H.
Qed.

Lemma relu_back_sound : forall z w lines al hl ba mu i acc pend c nu pe c', hull_facts ba z w ->
  Forall2 rline lines (skipn i z) -> relu_back lines al hl ba mu (pos i) acc pend c = (nu, pe, c') ->
  tdot nu z + tdot pe w + c' <= tdot acc z + tdot pend w + c + tdot_from mu (pos i) (map relu (skipn i z)).
Proof.
  intros z w lines al hl ba mu i acc pend c nu pe c' Hh H. remember (skipn i z) as zs eqn:Ezs.
  revert i acc pend c Ezs. induction H as [|[[a s] t] zi lines zs Hl H IH]; intros i acc pend c Ezs E; simpl in E |- *.
  - injection E as <- <- <-. lra.
  - symmetry in Ezs. destruct (skipn_cons z i zi zs Ezs) as [Hzi Hzs]. rewrite pos_succ in E |- *.
    destruct Hl as [Hlo Hup]. set (v := qget mu (pos i)) in *. destruct (Qeq_bool v 0) eqn:E0.
    + apply Qeq_bool_true in E0. assert (R := IH (S i) acc pend c (eq_sym Hzs) E). rewrite E0 in *. lra.
    + destruct (Qle_bool 0 v) eqn:E1.
      * apply Qle_bool_true in E1.
        set (a' := match tget al (pos i) with Some a1 => if Qle_bool 0 a1 && Qle_bool a1 1 then a1 else a | None => a end) in *.
        assert (R := IH (S i) _ pend c (eq_sym Hzs) E). rewrite tdot_tadd, Hzi in R.
        assert (Ha : a' * zi <= relu zi).
        { unfold a'. destruct (tget al (pos i)) as [a1|]; [|exact Hlo].
          destruct (Qle_bool 0 a1 && Qle_bool a1 1) eqn:Ea; [|exact Hlo].
          apply andb_true_iff in Ea as [Ea1 Ea2]. apply Qle_bool_true in Ea1, Ea2.
          destruct (relu_cases zi) as [[Z1 Z2]|[Z1 Z2]]; rewrite Z2; nra. }
        assert (v * (a' * zi) <= v * relu zi) by nra. lra.
      * apply Qle_bool_false in E1. destruct (relu_neg hl ba (pos i) v s t acc pend c) as [[acc1 pend1] c1] eqn:En.
        assert (R := IH (S i) acc1 pend1 c1 (eq_sym Hzs) E).
        assert (R2 := relu_neg_sound z w hl ba i v s t acc pend c acc1 pend1 c1 Hh E1 ltac:(rewrite Hzi; exact Hup) En).
        rewrite Hzi in R2. lra.
Qed.

(* ---- the splits' multipliers ---- *)
Lemma add_betas_sound : forall z bs acc, (forall i s beta, In (i, s, beta) bs -> side_ok s (at_ z i)) ->
  tdot (add_betas bs acc) z <= tdot acc z.
Proof.
  intros z. induction bs as [|[[i s] beta] bs IH]; intros acc H; simpl; [lra|].
  eapply Qle_trans; [apply IH; intros ? ? ? Hin; apply (H _ _ _ (or_intror Hin))|].
  destruct (Qle_bool 0 beta) eqn:E; [|lra]. apply Qle_bool_true in E. rewrite tdot_tadd_key.
  assert (Hs := H i s beta (or_introl eq_refl)). destruct s; simpl in Hs; nra.
Qed.

Lemma relu_splits_In : forall sp k i s, In (k, i, s) (relu_splits sp) -> In (SR k i s) sp.
Proof.
  induction sp as [|[k' i' s'|k' g' p'] sp IH]; intros k i s H; simpl in H; [contradiction| |].
  - destruct H as [H|H]; [injection H as <- <- <-; left; reflexivity | right; apply IH; exact H].
  - right. apply IH. exact H.
Qed.

Lemma max_splits_In : forall sp k g p, In (k, g, p) (max_splits sp) -> In (SM k g p) sp.
Proof.
  induction sp as [|[k' i' s'|k' g' p'] sp IH]; intros k g p H; simpl in H; [contradiction| |].
  - right. apply IH. exact H.
  - destruct H as [H|H]; [injection H as <- <- <-; left; reflexivity | right; apply IH; exact H].
Qed.

Lemma betas_at_In : forall k sp bl i s beta, In (i, s, beta) (betas_at k (combine (relu_splits sp) bl)) -> In (SR k i s) sp.
Proof.
  intros k sp bl i s beta H. unfold betas_at in H. apply in_flat_map in H as [[[[k' i'] s'] beta'] [Hin H]].
  destruct (Nat.eqb_spec k k') as [->|]; [|contradiction]. destruct H as [H|[]]. injection H as <- <- <-.
  apply in_combine_l in Hin. apply relu_splits_In. exact Hin.
Qed.

Lemma lambdas_at_In : forall k sp ll g p lam, In (g, p, lam) (lambdas_at k (combine (max_splits sp) ll)) -> In (SM k g p) sp.
Proof.
  intros k sp ll g p lam H. unfold lambdas_at in H. apply in_flat_map in H as [[[[k' g'] p'] lam'] [Hin H]].
  destruct (Nat.eqb_spec k k') as [->|]; [|contradiction]. destruct H as [H|[]]. injection H as <- <- <-.
  apply in_combine_l in Hin. apply max_splits_In. exact Hin.
Qed.

Lemma add_lambda_le : forall u xp g lam acc, (forall j, In j g -> at_ u j <= at_ u xp) ->
  tdot (add_lambda g (key xp) lam acc) u <= tdot acc u.
Proof.
  intros u xp. induction g as [|j g IH]; intros lam acc H; destruct lam as [|l lam]; simpl; try lra.
  eapply Qle_trans; [apply IH; intros j' Hj'; apply H; right; exact Hj'|].
  destruct (Qle_bool 0 l) eqn:E; [|lra]. apply Qle_bool_true in E. rewrite !tdot_tadd_key.
  assert (Hj := H j (or_introl eq_refl)). nra.
Qed.

Lemma add_lambdas_sound : forall u groups ls acc, (forall g p lam, In (g, p, lam) ls -> won u (nth (N.to_nat g) groups []) p) ->
  tdot (add_lambdas groups ls acc) u <= tdot acc u.
Proof.
  intros u groups. induction ls as [|[[g p] lam] ls IH]; intros acc H; simpl; [lra|].
  eapply Qle_trans; [apply IH; intros ? ? ? Hin; apply (H _ _ _ (or_intror Hin))|].
  apply add_lambda_le. intros j Hj. assert (Hw := H g p lam (or_introl eq_refl)).
  apply In_nth with (d := 0%N) in Hj as [m [Hm <-]]. apply Hw. exact Hm.
Qed.

(* ---- substituting backwards through the levels ---- *)
Lemma below_of_some : forall rest inb hl D rt bt t0, below_of rest inb hl = Some (D, rt, bt, t0) ->
  exists rows b rest' inb', rest = VAff D rows b :: rest' /\ inb = t0 :: inb' /\ rt = of_list rows /\ bt = of_list b.
Proof.
  intros rest inb hl D rt bt t0 H. unfold below_of in H.
  destruct hl; [discriminate|]. destruct rest as [|[D' rows b| |] rest]; try discriminate.
  destruct inb as [|t inb]; [discriminate|]. injection H as <- <- <- <-. exists rows, b, rest, inb. auto.
Qed.

Lemma back_sound : forall lv inb cl sp x mu pend c nu pe c', lv_ok lv inb sp x ->
  back lv inb cl sp mu pend c = (nu, pe, c') ->
  tdot nu x + tdot pe x + c' <= tdot mu (outv lv x) + tdot pend (outv (tl lv) x) + c.
Proof.
  induction lv as [|l rest IH]; intros inb cl sp x mu pend c nu pe c' Hok E.
  - simpl in E. injection E as <- <- <-. simpl. lra.
  - destruct Hok as [Hrest [Hsides Hl]]. simpl in E. simpl outv. simpl tl.
    set (u := outv rest x) in *. destruct l as [D rows b|lines|groups lines].
    + destruct (aff_back D rows b mu 1 pend c) as [nu1 c1] eqn:Ea.
      assert (R := IH _ _ _ _ _ _ _ _ _ _ Hrest E). rewrite tdot_TL in R.
      assert (A := aff_back_sound u D mu rows b 0 pend c nu1 c1 Ea). simpl level_op. unfold tdot in *. change (pos 0) with xH in *. fold u in R. cbn [eval_lop] in *. lra.
    + set (hl := hulls_at (length rest) (cl_hull cl)) in *.
      destruct (relu_back lines (alphas_at (length rest) (cl_alpha cl)) hl (below_of rest (tl inb) hl) mu 1 pend TL c)
        as [[nu1 pend1] c1] eqn:Er.
      assert (R := IH _ _ _ _ _ _ _ _ _ _ Hrest E).
      assert (B := add_betas_sound u (betas_at (length rest) (combine (relu_splits sp) (cl_beta cl))) nu1
                     ltac:(intros i s beta Hin; apply Hsides; eapply betas_at_In; exact Hin)).
      assert (Hh : hull_facts (below_of rest (tl inb) hl) u (outv (tl rest) x)).
      { destruct (below_of rest (tl inb) hl) as [[[[D rt] bt] t0]|] eqn:Eb; [|exact I].
        destruct (below_of_some _ _ _ _ _ _ _ Eb) as [rows [b [rest' [inb' [-> [Hi [-> ->]]]]]]].
        rewrite Hi in Hrest. destruct Hrest as [_ [_ Ht0]]. simpl in Ht0. intros i r bi ah ch Hr Hb Ho.
        exact (hull_sound D rows b t0 (outv rest' x) i r bi ah ch Ht0 Hr Hb Ho). }
      assert (Rb := relu_back_sound u (outv (tl rest) x) lines _ hl _ mu 0 pend TL c nu1 pend1 c1 Hh Hl Er).
      simpl skipn in Rb. rewrite tdot_TL in Rb.
      simpl level_op. unfold tdot in *. change (pos 0) with xH in *. fold u in R. cbn [eval_lop] in *. lra.
    + destruct Hl as [Hlines Hwon].
      destruct (max_back groups lines (pieces_at (length rest) (cl_piece cl)) mu 1 pend c) as [nu1 c1] eqn:Em.
      assert (R := IH _ _ _ _ _ _ _ _ _ _ Hrest E). rewrite tdot_TL in R.
      assert (L := add_lambdas_sound u groups (lambdas_at (length rest) (combine (max_splits sp) (cl_lambda cl))) nu1
                     ltac:(intros g p lam Hin; apply Hwon; eapply lambdas_at_In; exact Hin)).
      assert (M := max_back_sound u _ mu groups lines 0 pend c nu1 c1 Hlines Em).
      simpl level_op. unfold tdot in *. change (pos 0) with xH in *. fold u in R. cbn [eval_lop] in *. lra.
Qed.

(* ---- the box ---- *)
Lemma box_val_sound : forall nu pe B x, in_box B x -> forall ax i,
  box_val nu pe ax B (pos i) <= tdot_from nu (pos i) x + tdot_from pe (pos i) x + dot ax x.
Proof.
  intros nu pe B x H. induction H as [|[lo hi] y B x [Hlo Hhi] H IH]; intros ax i; simpl in *.
  - destruct ax; simpl; lra.
  - rewrite pos_succ. specialize (IH (tl ax) (S i)).
    set (f := qadd (qadd (qget nu (pos i)) (qget pe (pos i))) (hd 0 ax)).
    assert (Ef : f * y == (qget nu (pos i) + qget pe (pos i) + hd 0 ax) * y) by (unfold f; rewrite !qadd_correct; reflexivity).
    assert (Hf : (if Qle_bool 0 f then f * lo else f * hi) <= f * y).
    { destruct (Qle_bool 0 f) eqn:E; [apply Qle_bool_true in E | apply Qle_bool_false in E]; nra. }
    rewrite qadd_correct. destruct ax as [|a ax]; simpl in *; lra.
Qed.

Lemma lower_sound : forall lv inb B cl sp mu ax x, in_box B x -> lv_ok lv inb sp x ->
  lower lv inb B cl sp mu ax <= tdot mu (outv lv x) + dot ax x.
Proof.
  intros lv inb B cl sp mu ax x HB Hok. unfold lower.
  destruct (back lv inb cl sp mu TL 0) as [[nu pe] c] eqn:E.
  assert (R := back_sound lv inb cl sp x mu TL 0 nu pe c Hok E). rewrite tdot_TL in R.
  assert (Bv := box_val_sound nu pe B x HB ax 0). rewrite qadd_correct. unfold tdot in *. change (pos 0) with xH in *. lra.
Qed.

(* ---- the splits of a node, at a point ---- *)
(* the vector op k reads at the input x *)
Definition vin (net : LNet) (x : vec) (k : nat) : vec := fold_left (fun v o => eval_lop o v) (firstn k (ln_ops net)) x.

Definition split_holds (net : LNet) (x : vec) (s : lsplit) : Prop :=
  match s with
  | SR k i side => side_ok side (at_ (vin net x k) i)
  | SM k g p => won (vin net x k) (group_of net k g) p
  end.

Definition splits_hold (net : LNet) (x : vec) (sp : list lsplit) : Prop := forall s, In s sp -> split_holds net x s.

Lemma splits_hold_app : forall net x sp s, splits_hold net x sp -> split_holds net x s -> splits_hold net x (sp ++ [s]).
Proof.
  intros net x sp s H Hs s' Hin. apply in_app_or in Hin as [Hin|[<-|[]]]; [apply H; exact Hin | exact Hs].
Qed.

Lemma firstn_S_nth : forall {A} (l : list A) k a, nth_error l k = Some a -> firstn (S k) l = firstn k l ++ [a].
Proof.
  induction l as [|b l IH]; intros k a H; destruct k; simpl in *; try discriminate.
  - injection H as <-. reflexivity.
  - f_equal. apply IH. exact H.
Qed.

Lemma vin_S : forall net x k o, nth_error (ln_ops net) k = Some o -> vin net x (S k) = eval_lop o (vin net x k).
Proof. intros net x k o H. unfold vin. rewrite (firstn_S_nth _ k o H), fold_left_app. reflexivity. Qed.

Lemma skipn_nth_error : forall {A} (l : list A) k a r, skipn k l = a :: r -> nth_error l k = Some a /\ skipn (S k) l = r.
Proof.
  induction l as [|b l IH]; intros k a r H; destruct k; simpl in *; try discriminate.
  - injection H as <- <-. auto.
  - apply IH. exact H.
Qed.

(* ---- a leaf's bounds, op by op ---- *)
Lemma in_box_set_nth : forall bn v idx f, in_box bn v ->
  (forall lh, fst lh <= nth idx v 0 -> nth idx v 0 <= snd lh -> fst (f lh) <= nth idx v 0 /\ nth idx v 0 <= snd (f lh)) ->
  in_box (set_nth idx f bn) v.
Proof.
  intros bn v idx f H. revert idx. induction H as [|lh z bn v [H1 H2] H IH]; intros idx Hf; destruct idx; simpl in *.
  - constructor.
  - constructor.
  - constructor; [exact (Hf lh H1 H2) | exact H].
  - constructor; [split; assumption | apply IH; exact Hf].
Qed.

Lemma refine_sound : forall lv inb B x sp es bn, in_box B x -> lv_ok lv inb sp x -> in_box bn (outv lv x) ->
  in_box (refine lv inb B es bn) (outv lv x).
Proof.
  intros lv inb B x sp es. induction es as [|i es IH]; intros bn HB Hok Hbn; simpl; [exact Hbn|]. apply IH; [exact HB | exact Hok|].
  assert (Hok' := lv_ok_nil lv inb sp x Hok).
  assert (L1 := lower_sound lv inb B no_close [] (tset (key i) 1 TL) [] x HB Hok').
  assert (L2 := lower_sound lv inb B no_close [] (tset (key i) (-1) TL) [] x HB Hok').
  rewrite tdot_unit in L1, L2. simpl dot in L1, L2. unfold at_ in L1, L2.
  assert (D1 := down24_le (lower lv inb B no_close [] (tset (key i) 1 TL) [])).
  assert (D2 := up24_ge (- lower lv inb B no_close [] (tset (key i) (-1) TL) [])).
  apply in_box_set_nth; [exact Hbn|]. intros lh Hl Hh. simpl. split.
  - apply qmax_le; lra.
  - apply qmin_ge; lra.
Qed.

Lemma clip_sound : forall k sp bn v, (forall i s, In (SR k i s) sp -> side_ok s (at_ v i)) -> in_box bn v -> in_box (clip sp k bn) v.
Proof.
  intros k. induction sp as [|[k' i s|k' g p] sp IH]; intros bn v Hs H; simpl; [exact H| |].
  - apply IH; [intros i' s' Hin; apply Hs; right; exact Hin|]. destruct (Nat.eqb_spec k k') as [<-|]; [|exact H].
    apply in_box_set_nth; [exact H|]. assert (Hi := Hs i s (or_introl eq_refl)). unfold at_ in Hi.
    intros lh Hl Hh. destruct s; simpl in *; split; try (apply qmax_le; lra); try (apply qmin_ge; lra); lra.
  - apply IH; [intros i' s' Hin; apply Hs; right; exact Hin | exact H].
Qed.

Lemma not_some_empty : forall bn v, in_box bn v -> some_empty bn = true -> False.
Proof.
  intros bn v H E. unfold some_empty in E. apply existsb_exists in E as [lh [Hin E]]. apply qlt_true in E.
  apply In_nth_error in Hin as [i Hi]. destruct (in_box_nth bn v i lh H Hi). lra.
Qed.

Lemma relu_lines_sound : forall bn v, in_box bn v ->
  forallb (fun x => relu_line_ok (fst x) (fst (snd x)) (snd (snd x))) (combine (map (fun lh => relu_line (fst lh) (snd lh)) bn) bn) = true ->
  Forall2 rline (map (fun lh => relu_line (fst lh) (snd lh)) bn) v.
Proof.
  intros bn v H. induction H as [|[lo hi] z bn v [H1 H2] H IH]; intros E; simpl in *; constructor.
  - apply andb_true_iff in E as [E _]. destruct (relu_line lo hi) as [[a s] t]. exact (relu_line_ok_sound a s t lo hi z E H1 H2).
  - apply IH. apply andb_true_iff in E as [_ E]. exact E.
Qed.

Lemma pos_part_box : forall bn v, in_box bn v -> in_box (map (fun lh => (pos_part (fst lh), pos_part (snd lh))) bn) (map relu v).
Proof.
  intros bn v H. induction H as [|[lo hi] z bn v [H1 H2] H IH]; simpl; constructor; [|exact IH].
  simpl in *. split; [apply pos_part_lo | apply pos_part_hi]; assumption.
Qed.

Lemma winner_In : forall sp k g p, winner sp k g = Some p -> In (SM k g p) sp.
Proof.
  induction sp as [|[k' i s|k' g' p'] sp IH]; intros k g p H; simpl in H; [discriminate| |].
  - right. apply IH. exact H.
  - destruct (Nat.eqb k k' && N.eqb g g') eqn:E.
    + apply andb_true_iff in E as [E1 E2]. apply Nat.eqb_eq in E1. apply N.eqb_eq in E2. subst. injection H as <-. left. reflexivity.
    + right. apply IH. exact H.
Qed.

Lemma max_lines_sound : forall sp k t v groups g0 lines rs, tbox t v ->
  (forall m grp p, nth_error groups m = Some grp -> winner sp k (g0 + N.of_nat m)%N = Some p -> won v grp p) ->
  max_lines sp k t groups g0 = Some (lines, rs) ->
  Forall2 (mline v) groups lines /\ in_box rs (eval_lop (LMax groups) v).
Proof.
  intros sp k t v groups. induction groups as [|grp groups IH]; intros g0 lines rs Ht Hw E; simpl in E.
  - injection E as <- <-. split; constructor.
  - destruct (max_line_ok (map (bget t) grp) (winner sp k g0) (max_line (map (bget t) grp) (winner sp k g0))) eqn:Eok; [|discriminate].
    destruct (max_lines sp k t groups (N.succ g0)) as [[ls rs']|] eqn:Er; [|discriminate]. injection E as <- <-.
    assert (Hw0 : forall p, winner sp k g0 = Some p -> won v grp p).
    { intros p Hp. apply (Hw 0%nat grp p eq_refl). rewrite N.add_0_r. exact Hp. }
    destruct (IH (N.succ g0) ls rs' Ht) as [IH1 IH2]; [|exact Er|].
    { intros m grp' p Hm Hp. apply (Hw (S m) grp' p Hm). replace (g0 + N.of_nat (S m))%N with (N.succ g0 + N.of_nat m)%N by lia. exact Hp. }
    destruct (max_line (map (bget t) grp) (winner sp k g0)) as [[[low top] s] tt] eqn:Eln.
    destruct (max_line_ok_sound t v grp (winner sp k g0) low top s tt Ht Hw0 Eok) as [L1 [L2 L3]].
    split; constructor; auto.
    + simpl. auto.
    + apply max_range_sound; [exact Ht | destruct grp; simpl in L1; [lia | discriminate] |].
      intros p Hp. split; [exact (Hw0 p Hp)|]. unfold max_line in Eln. rewrite Hp in Eln. injection Eln as <- <- _ _. exact L2.
Qed.

Lemma leaf_levels_sound : forall net x B sp rf ops k below inb bn, in_box B x -> splits_hold net x sp ->
  ops = skipn k (ln_ops net) -> lv_ok below inb sp x -> outv below x = vin net x k -> length below = k ->
  in_box bn (outv below x) ->
  match leaf_levels B sp rf k below inb bn ops with
  | FOk lv inb' => lv_ok lv inb' sp x /\ outv lv x = eval_layered net x
  | FEmpty => False
  | FBad => True
  end.
Proof.
  intros net x B sp rf. induction ops as [|o ops IH]; intros k below inb bn HB Hsp Hops Hok Hv Hlen Hbn; simpl.
  - split; [exact Hok|]. rewrite Hv. unfold vin, eval_layered. rewrite firstn_all2; [reflexivity|].
    symmetry in Hops. apply (f_equal (@length lop)) in Hops. rewrite skipn_length in Hops. simpl in Hops. lia.
  - symmetry in Hops. destruct (skipn_nth_error _ _ _ _ Hops) as [Ho Hops'].
    assert (Hsides : forall i s, In (SR k i s) sp -> side_ok s (at_ (outv below x) i)).
    { intros i s Hin. rewrite Hv. exact (Hsp _ Hin). }
    destruct o as [D rows b| |groups].
    + destruct (Nat.eqb (length rows) (length b)); [|exact I].
      apply IH; auto.
      * simpl. split; [exact Hok|]. split; [rewrite Hlen; exact Hsides | exact (tbox_of_list bn _ Hbn)].
      * rewrite (vin_S net x k _ Ho), <- Hv. reflexivity.
      * simpl. lia.
      * apply aff_bounds_sound. exact Hbn.
    + set (bn1 := clip sp k (refine below inb B (refine_at k rf) bn)).
      assert (H1 : in_box bn1 (outv below x)) by (apply clip_sound; [exact Hsides | apply (refine_sound _ _ _ _ sp); assumption]).
      destruct (some_empty bn1) eqn:Ee; [exact (not_some_empty _ _ H1 Ee)|].
      destruct (forallb _ (combine (map (fun lh => relu_line (fst lh) (snd lh)) bn1) bn1)) eqn:El; [|exact I].
      apply IH; auto.
      * simpl. split; [exact Hok|]. split; [rewrite Hlen; exact Hsides | exact (relu_lines_sound bn1 _ H1 El)].
      * rewrite (vin_S net x k _ Ho), <- Hv. reflexivity.
      * simpl. lia.
      * apply pos_part_box. exact H1.
    + set (bn1 := refine below inb B (refine_at k rf) bn).
      assert (H1 : in_box bn1 (outv below x)) by (apply (refine_sound _ _ _ _ sp); assumption).
      destruct (some_empty bn1) eqn:Ee; [exact (not_some_empty _ _ H1 Ee)|].
      assert (Hwon : forall g p, In (SM k g p) sp -> won (outv below x) (nth (N.to_nat g) groups []) p).
      { intros g p Hin. assert (H := Hsp _ Hin). simpl in H. unfold group_of in H. rewrite Ho in H. rewrite Hv. exact H. }
      destruct (max_lines sp k (of_list bn1) groups 0) as [[lines rs]|] eqn:Em; [|exact I].
      destruct (max_lines_sound sp k (of_list bn1) (outv below x) groups 0 lines rs (tbox_of_list _ _ H1)) as [M1 M2]; [| exact Em |].
      { intros m grp p Hm Hp. apply winner_In in Hp. simpl in Hp. apply Hwon in Hp. rewrite Nat2N.id in Hp.
        rewrite (nth_error_nth _ _ _ Hm) in Hp. exact Hp. }
      destruct (some_empty rs) eqn:Er; [exact (not_some_empty _ _ M2 Er)|].
      apply IH; auto.
      * simpl. split; [exact Hok|]. split; [rewrite Hlen; exact Hsides|]. split; [exact M1 | rewrite Hlen; exact Hwon].
      * rewrite (vin_S net x k _ Ho), <- Hv. reflexivity.
      * simpl. lia.
Qed.

(* ---- a leaf ---- *)
Lemma norm_box_sound : forall B x, in_box B x -> in_box (norm_box B) x.
Proof.
  intros B x H. unfold norm_box. set (B' := map _ B). destruct (_ && _) eqn:E; [|exact H].
  apply andb_true_iff in E as [E1 E2]. apply Nat.eqb_eq in E2. clearbody B'. revert B' E1 E2.
  induction H as [|[lo hi] y B x [H1 H2] H IH]; intros B' E1 E2; destruct B' as [|[lo' hi'] B']; simpl in *; try discriminate; constructor.
  - repeat rewrite andb_true_iff in E1. destruct E1 as [[E3 E4] _]. apply Qeq_bool_true in E3, E4. simpl. split; [rewrite <- E3 | rewrite <- E4]; assumption.
  - apply IH; [apply andb_true_iff in E1 as [_ E1]; exact E1 | lia].
Qed.

Lemma close_ok_sound : forall lv inb B sp C D cl x, in_box B x -> lv_ok lv inb sp x -> close_ok lv inb B sp C D cl = true ->
  conj_holds C x (outv lv x) -> ~ conj_holds D x (outv lv x).
Proof.
  intros lv inb B sp C D cl x HB Hok E HC HD. unfold close_ok in E.
  destruct (nth_error (if cl_region cl then C else D) (N.to_nat (cl_atom cl))) as [a|] eqn:Ea; [|discriminate].
  apply andb_true_iff in E as [E1 E2]. apply Qeq_bool_true in E1. apply Qlt_bool_true in E2.
  assert (L := lower_sound lv inb B cl sp (of_list (at_y a)) (at_x a) x HB Hok). rewrite tdot_of_list in L.
  assert (Hf : ~ atom_holds a x (outv lv x)) by (unfold atom_holds; lra).
  apply Hf. apply nth_error_In in Ea. destruct (cl_region cl).
  - unfold conj_holds in HC. rewrite Forall_forall in HC. apply HC. exact Ea.
  - unfold conj_holds in HD. rewrite Forall_forall in HD. apply HD. exact Ea.
Qed.

Lemma closes_ok_sound : forall lv inb B sp C U cls x, in_box B x -> lv_ok lv inb sp x -> closes_ok lv inb B sp C U cls = true ->
  conj_holds C x (outv lv x) -> forall D, In D U -> ~ conj_holds D x (outv lv x).
Proof.
  intros lv inb B sp C U. induction U as [|D0 U IH]; intros cls x HB Hok E HC D Hin; [contradiction|].
  destruct cls as [|cl cls]; simpl in E; [discriminate|]. apply andb_true_iff in E as [E1 E2].
  destruct Hin as [<-|Hin]; [exact (close_ok_sound lv inb B sp C D0 cl x HB Hok E1 HC) | exact (IH cls x HB Hok E2 HC D Hin)].
Qed.

Definition node_claim (net : LNet) (U : list (list atom)) (only : option nat) (x : vec) : Prop :=
  forall D, In D (todo U only) -> ~ conj_holds D x (eval_layered net x).

Lemma check_leaf_sound : forall net C U only B sp rf cls x, check_leaf net C U only B sp rf cls = true ->
  in_box B x -> splits_hold net x sp -> conj_holds C x (eval_layered net x) -> node_claim net U only x.
Proof.
  intros net C U only B sp rf cls x E HB Hsp HC. unfold check_leaf in E.
  assert (HB' := norm_box_sound B x HB).
  assert (L := leaf_levels_sound net x (norm_box B) sp rf (ln_ops net) 0 [] [] (norm_box B) HB' Hsp eq_refl I eq_refl eq_refl HB').
  destruct (leaf_levels (norm_box B) sp rf 0 [] [] (norm_box B) (ln_ops net)) as [| |lv inb]; [discriminate|contradiction|].
  destruct L as [Hok Hout]. destruct cls as [cl|]; [|discriminate]. intros D Hin.
  rewrite <- Hout in HC |- *. exact (closes_ok_sound lv inb _ sp C _ cl x HB' Hok E HC D Hin).
Qed.

(* ---- the tree ---- *)
Lemma in_box_set_le : forall B x i c, in_box B x -> nth i x 0 <= c -> in_box (set_nth i (fun lu => (fst lu, c)) B) x.
Proof.
  intros B x i c H Hc. apply in_box_set_nth; [exact H|]. intros lh H1 H2. simpl. split; assumption.
Qed.

Lemma in_box_set_ge : forall B x i c, in_box B x -> c <= nth i x 0 -> in_box (set_nth i (fun lu => (c, snd lu)) B) x.
Proof.
  intros B x i c H Hc. apply in_box_set_nth; [exact H|]. intros lh H1 H2. simpl. split; assumption.
Qed.

Lemma argmax_exists : forall (f : nat -> Q) n, (0 < n)%nat -> exists p, (p < n)%nat /\ forall m, (m < n)%nat -> f m <= f p.
Proof.
  intros f n Hn. induction n as [|n IH]; [lia|]. destruct n as [|n].
  - exists 0%nat. split; [lia|]. intros m Hm. replace m with 0%nat by lia. lra.
  - destruct (IH ltac:(lia)) as [p [Hp H]]. destruct (Qlt_le_dec (f p) (f (S n))) as [Hlt|Hle].
    + exists (S n). split; [lia|]. intros m Hm. destruct (Nat.eq_dec m (S n)) as [->|Hne]; [lra|]. specialize (H m ltac:(lia)). lra.
    + exists p. split; [lia|]. intros m Hm. destruct (Nat.eq_dec m (S n)) as [->|Hne]; [exact Hle|]. apply H. lia.
Qed.

Scheme ltree_mind := Induction for ltree Sort Prop with lforest_mind := Induction for lforest Sort Prop.

Lemma check_ltree_sound : forall net C U t B sp only x, check_ltree net C U B sp only t = true -> in_box B x ->
  splits_hold net x sp -> conj_holds C x (eval_layered net x) -> node_claim net U only x.
Proof.
  intros net C U t.
  apply (ltree_mind
    (fun t => forall B sp only x, check_ltree net C U B sp only t = true -> in_box B x ->
       splits_hold net x sp -> conj_holds C x (eval_layered net x) -> node_claim net U only x)
    (fun f => (forall B sp only k g p0 x, check_mparts net C U B sp only k g p0 f = true -> in_box B x ->
                 splits_hold net x sp -> conj_holds C x (eval_layered net x) ->
                 forall p, (p0 <= p < p0 + forest_length f)%nat -> split_holds net x (SM k g p) -> node_claim net U only x)
              /\ (forall B sp u0 x, check_each net C U B sp u0 f = true -> in_box B x ->
                 splits_hold net x sp -> conj_holds C x (eval_layered net x) ->
                 forall u, (u0 <= u < u0 + forest_length f)%nat -> node_claim net U (Some u) x))); clear t.
  - (* a leaf *)
    intros rf cls B sp only x E HB Hsp HC. exact (check_leaf_sound net C U only B sp rf cls x E HB Hsp HC).
  - (* an input split *)
    intros i c le IHle ge IHge B sp only x E HB Hsp HC. simpl in E. apply andb_true_iff in E as [E1 E2].
    destruct (Qlt_le_dec c (nth i x 0)) as [Hc|Hc].
    + apply (IHge _ sp only x E2); [apply in_box_set_ge; [exact HB | lra] | exact Hsp | exact HC].
    + apply (IHle _ sp only x E1); [apply in_box_set_le; assumption | exact Hsp | exact HC].
  - (* a ReLU split *)
    intros k i le IHle ge IHge B sp only x E HB Hsp HC. simpl in E. repeat rewrite andb_true_iff in E.
    destruct E as [[_ E1] E2]. destruct (Qlt_le_dec 0 (at_ (vin net x k) i)) as [Hz|Hz].
    + apply (IHge B _ only x E2 HB); [apply splits_hold_app; [exact Hsp | simpl; lra] | exact HC].
    + apply (IHle B _ only x E1 HB); [apply splits_hold_app; [exact Hsp | exact Hz] | exact HC].
  - (* a max split *)
    intros k g parts [IHm _] B sp only x E HB Hsp HC. simpl in E. repeat rewrite andb_true_iff in E.
    destruct E as [[E1 E2] E3]. apply negb_true_iff in E1. apply Nat.eqb_neq in E1. apply Nat.eqb_eq in E2.
    destruct (argmax_exists (fun m => at_ (vin net x k) (nth m (group_of net k g) 0%N)) (length (group_of net k g)) ltac:(lia))
      as [p [Hp Hmax]].
    apply (IHm B sp only k g 0%nat x E3 HB Hsp HC p ltac:(lia)). simpl. intros m Hm. exact (Hmax m Hm).
  - (* a split by unsafe disjunct *)
    intros parts [_ IHe] B sp only x E HB Hsp HC. simpl in E. destruct only as [u|]; [discriminate|].
    apply andb_true_iff in E as [E1 E2]. apply Nat.eqb_eq in E1. intros D Hin. simpl in Hin.
    apply In_nth_error in Hin as [u Hu]. assert (Hlt : (u < length U)%nat) by (apply nth_error_Some; congruence).
    apply (IHe B sp 0%nat x E2 HB Hsp HC u ltac:(lia)). simpl. rewrite Hu. left. reflexivity.
  - (* an empty box *)
    intros i B sp only x E HB Hsp HC. simpl in E. destruct (nth_error B i) as [lu|] eqn:Ei; [|discriminate].
    apply Qlt_bool_true in E. destruct (in_box_nth B x i lu HB Ei). lra.
  - (* no parts *)
    split; intros; simpl in *; lia.
  - (* a part, then the others *)
    intros t IHt f [IHm IHe]. split.
    + intros B sp only k g p0 x E HB Hsp HC p Hp Hs. simpl in E. apply andb_true_iff in E as [E1 E2].
      destruct (Nat.eq_dec p p0) as [->|Hne].
      * exact (IHt B _ only x E1 HB (splits_hold_app net x sp _ Hsp Hs) HC).
      * simpl in Hp. exact (IHm B sp only k g (S p0) x E2 HB Hsp HC p ltac:(lia) Hs).
    + intros B sp u0 x E HB Hsp HC u Hu. simpl in E. apply andb_true_iff in E as [E1 E2].
      destruct (Nat.eq_dec u u0) as [->|Hne].
      * exact (IHt B sp (Some u0) x E1 HB Hsp HC).
      * simpl in Hu. exact (IHe B sp (S u0) x E2 HB Hsp HC u ltac:(lia)).
Qed.

(* ---- the box of an input disjunct ---- *)
Lemma skipn_nth : forall (x : vec) i, (i < length x)%nat -> skipn i x = nth i x 0 :: skipn (S i) x.
Proof. exact VnnSound.skipn_nth. Qed.

Lemma box_implied_sound : forall C B hints i x y, box_implied C i B hints = true -> conj_holds C x y ->
  length x = (i + length B)%nat -> in_box B (skipn i x).
Proof.
  intros C. induction B as [|[lo hi] B IH]; intros hints i x y H HC Hl.
  - simpl in Hl. rewrite skipn_all2 by lia. constructor.
  - destruct hints as [|[jl ju] hints]; simpl in H; [discriminate|]. simpl in Hl.
    apply andb_true_iff in H as [H1 H2].
    destruct (nth_error C (N.to_nat jl)) as [al|] eqn:El; [|discriminate].
    destruct (nth_error C (N.to_nat ju)) as [au|] eqn:Eu; [|discriminate].
    apply andb_true_iff in H1 as [Hlo Hhi]. unfold conj_holds in HC. rewrite Forall_forall in HC.
    rewrite skipn_nth by lia. constructor.
    + split; [eapply VnnSound.gives_lower_sound; [exact Hlo | apply HC; eapply nth_error_In; exact El]
             | eapply VnnSound.gives_upper_sound; [exact Hhi | apply HC; eapply nth_error_In; exact Eu]].
    + apply (IH hints (S i) x y H2); [unfold conj_holds; rewrite Forall_forall; exact HC | lia].
Qed.

Lemma check_lsteps_sound : forall net n U R steps x, check_lsteps net n U R steps = true -> length x = n ->
  dnf_holds R x (eval_layered net x) -> ~ dnf_holds U x (eval_layered net x).
Proof.
  intros net n U. induction R as [|C R IH]; intros steps x H Hx HR; [inversion HR|].
  destruct steps as [|[[B hints] t] steps]; simpl in H; [discriminate|].
  repeat rewrite andb_true_iff in H. destruct H as [[[HB Himp] Ht] H]. apply Nat.eqb_eq in HB.
  inversion HR as [? ? HC|? ? HR']; subst.
  - intro HU. apply Exists_exists in HU as [D [HD HDx]].
    refine (check_ltree_sound net C U t B [] None x Ht _ _ HC D HD HDx).
    + apply (box_implied_sound C B hints 0 x (eval_layered net x) Himp HC). simpl. lia.
    + intros s [].
  - exact (IH steps x H Hx HR').
Qed.

(* ---- the theorem ---- *)
Theorem check_layered_sound : forall N P steps, check_layered N P steps = true -> layered_unsat N P.
Proof.
  intros N P steps H x Hx [HR HU]. exact (check_lsteps_sound N _ _ _ steps x H Hx HR HU).
Qed.
