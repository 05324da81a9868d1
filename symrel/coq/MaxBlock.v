(* MaxBlock.v: Block 2 proved (max_lemma of Correctness.v): the hardmax head of unit i writes
   h_i(v) = max(-B, l_i1, .., l_ik) into O_i on every token, whatever the ties. *)
From Coq Require Import QArith Lqa List Bool Arith Lia.
Import ListNotations.
From Symrel Require Import Semantics Compiler Bounds Correctness Linalg Blocks Move.
Open Scope Q_scope.

Lemma Qle_bool_proper : forall a a' b b', a == a' -> b == b' -> Qle_bool a b = Qle_bool a' b'.
Proof.
  intros a a' b b' Ha Hb. destruct (Qle_bool a b) eqn:E1, (Qle_bool a' b') eqn:E2; try reflexivity.
  - apply Qle_bool_iff in E1. assert (a' <= b') by (rewrite <- Ha, <- Hb; exact E1).
    apply Qle_bool_iff in H. congruence.
  - apply Qle_bool_iff in E2. assert (a <= b) by (rewrite Ha, Hb; exact E2).
    apply Qle_bool_iff in H. congruence.
Qed.

Lemma Qeq_bool_proper : forall a a' b b', a == a' -> b == b' -> Qeq_bool a b = Qeq_bool a' b'.
Proof.
  intros a a' b b' Ha Hb. destruct (Qeq_bool a b) eqn:E1, (Qeq_bool a' b') eqn:E2; try reflexivity.
  - apply Qeq_bool_iff in E1. assert (a' == b') by (rewrite <- Ha, <- Hb; exact E1).
    apply Qeq_bool_iff in H. congruence.
  - apply Qeq_bool_iff in E2. assert (a == b) by (rewrite Ha, Hb; exact E2).
    apply Qeq_bool_iff in H. congruence.
Qed.

Lemma qmax_proper : forall a a' b b', a == a' -> b == b' -> qmax a b == qmax a' b'.
Proof.
  intros a a' b b' Ha Hb. unfold qmax. rewrite (Qle_bool_proper a a' b b' Ha Hb).
  destruct (Qle_bool a' b'); assumption.
Qed.

Lemma fold_qmax_proper : forall r r' a a', a == a' -> agree r r' -> fold_left qmax r a == fold_left qmax r' a'.
Proof.
  intros r r' a a' Ha H. revert a a' Ha. induction H as [|x y r r' Hxy H IH]; intros a a' Ha; simpl; [exact Ha|].
  apply IH. apply qmax_proper; assumption.
Qed.

Lemma max_list_proper : forall l l', agree l l' -> max_list l == max_list l'.
Proof.
  intros l l' H. destruct H as [|x y r r' Hxy H]; simpl; [reflexivity|]. apply fold_qmax_proper; assumption.
Qed.

Lemma count_proper : forall l l' top top', agree l l' -> top == top' ->
  length (filter (fun v => Qeq_bool v top) l) = length (filter (fun v => Qeq_bool v top') l').
Proof.
  intros l l' top top' H Ht. induction H as [|x y r r' Hxy H IH]; simpl; [reflexivity|].
  rewrite (Qeq_bool_proper x y top top' Hxy Ht). destruct (Qeq_bool y top'); simpl; rewrite IH; reflexivity.
Qed.

Lemma weights_proper : forall l l' top top' c, agree l l' -> top == top' ->
  agree (map (fun v => if Qeq_bool v top then c else 0) l) (map (fun v => if Qeq_bool v top' then c else 0) l').
Proof.
  intros l l' top top' c H Ht. induction H as [|x y r r' Hxy H IH]; simpl; constructor; [|exact IH].
  rewrite (Qeq_bool_proper x y top top' Hxy Ht). reflexivity.
Qed.

Lemma hardmax_proper : forall s s', agree s s' -> agree (hardmax s) (hardmax s').
Proof.
  intros s s' H. unfold hardmax.
  pose proof (max_list_proper s s' H) as Ht. rewrite (count_proper s s' _ _ H Ht).
  apply weights_proper; assumption.
Qed.

Lemma max_list_le : forall l M, l <> [] -> (forall e, In e l -> e <= M) -> max_list l <= M.
Proof.
  intros [|a r] M Hl H; [congruence|]. simpl. apply fold_qmax_le.
  - apply H. left. reflexivity.
  - intros e He. apply H. right. exact He.
Qed.

(* the scores of head i over the tokens: max(-B, l_i1, .., l_ik) = h_i(v) under the bounds *)
Lemma max_gated : forall Lo n Ly B v i, fits Lo n Ly -> bounded Ly B v -> (i < length Ly)%nat ->
  max_list (map (fun t => gated Ly B v t i) (seq 0 (ntok Lo))) == eval_unit (nth i Ly []) v.
Proof.
  intros Lo n Ly B v i [Hwf [_ [_ [_ Htok]]]] Hb Hi.
  set (u := nth i Ly []).
  assert (Hu : In u Ly) by (apply nth_In; exact Hi).
  assert (Hne : u <> []).
  { unfold layer_wf in Hwf. apply andb_true_iff in Hwf as [_ Hwf]. rewrite forallb_forall in Hwf.
    specialize (Hwf u Hu). apply andb_true_iff in Hwf as [Hz _]. destruct u; [discriminate|congruence]. }
  assert (HT : (length u < ntok Lo)%nat) by (rewrite Forall_forall in Htok; apply Htok; exact Hu).
  assert (Hmem : forall pc, In pc u -> eval_piece pc v <= eval_unit u v).
  { intros pc Hpc. unfold eval_unit. apply max_list_ge. apply (in_map (fun p => eval_piece p v)). exact Hpc. }
  assert (HB : - B <= eval_unit u v).
  { destruct u as [|pc r]; [congruence|]. destruct (Hb (pc :: r) pc Hu (or_introl eq_refl)).
    eapply Qle_trans; [exact H|]. apply Hmem. left. reflexivity. }
  apply Qle_antisym.
  - apply max_list_le.
    + destruct (ntok Lo) eqn:E; [lia|]. simpl. discriminate.
    + intros e He. apply in_map_iff in He as [t [<- _]]. unfold gated.
      replace (i <? length Ly)%nat with true by (symmetry; apply Nat.ltb_lt; exact Hi). fold u.
      destruct t as [|j]; [exact HB|]. destruct (nth_error u j) as [pc|] eqn:E; [|exact HB].
      apply Hmem. apply nth_error_In with j. exact E.
  - assert (Hin : In (eval_unit u v) (map (fun pc => eval_piece pc v) u)).
    { apply max_list_in. destruct u; [congruence|]. simpl. discriminate. }
    apply in_map_iff in Hin as [pc [Epc Hpc]].
    destruct (In_nth_error u pc Hpc) as [j Ej].
    apply max_list_ge. apply in_map_iff. exists (S j). split.
    + unfold gated. replace (i <? length Ly)%nat with true by (symmetry; apply Nat.ltb_lt; exact Hi).
      fold u. rewrite Ej. exact Epc.
    + apply in_seq. assert (j < length u)%nat by (apply nth_error_Some; rewrite Ej; discriminate). lia.
Qed.

Lemma dot_proper_l : forall a a' b, agree a a' -> dot a b == dot a' b.
Proof.
  intros a a' b H. revert b. induction H as [|x y a a' Hxy H IH]; intros b; simpl; [reflexivity|].
  destruct b as [|c b]; [reflexivity|]. rewrite Hxy, (IH b). reflexivity.
Qed.

Lemma lin_comb_single : forall (w : list Q) (Z : state) (f : vec -> Q), length w = length Z -> Z <> [] ->
  agree (lin_comb w (map (fun zs => [f zs]) Z)) [dot w (map f Z)].
Proof.
  induction w as [|a w IH]; intros Z f Hl Hne; destruct Z as [|zs Z]; simpl in Hl; try lia; try congruence.
  destruct w as [|b w].
  - destruct Z; simpl in Hl; [|lia]. simpl. constructor; [ring|constructor].
  - destruct Z as [|zs' Z]; simpl in Hl; [lia|].
    change (lin_comb (a :: b :: w) (map (fun zs0 => [f zs0]) (zs :: zs' :: Z)))
      with (vadd [a * f zs] (lin_comb (b :: w) (map (fun zs0 => [f zs0]) (zs' :: Z)))).
    pose proof (IH (zs' :: Z) f ltac:(simpl; lia) ltac:(discriminate)) as H.
    inversion H as [|x y r r' Hxy Hr E1 E2]. inversion Hr. subst. simpl. rewrite <- E1. simpl.
    constructor; [|constructor]. rewrite Hxy. simpl. ring.
Qed.

Definition max_head (Lo : layout) (i : nat) : head :=
  {| WQ := [unit_vec (width Lo) (slotC Lo)]; WK := [unit_vec (width Lo) (slotS Lo i)];
     WV := [unit_vec (width Lo) (slotS Lo i)];
     WO := map (fun x => [x]) (unit_vec (width Lo) (slotO Lo i)) |}.

Lemma max_block_heads : forall Lo Ly, max_block Lo Ly = {| attn := Some (map (max_head Lo) (seq 0 (length Ly))); ff := None |}.
Proof. reflexivity. Qed.

Lemma colf_C : forall Lo v s o t, colf Lo v s o t (slotC Lo) = 1.
Proof.
  intros. unfold colf, slotC. destruct (Nat.ltb_spec (dx Lo + ntok Lo) (dx Lo)); [lia|].
  destruct (Nat.ltb_spec (dx Lo + ntok Lo) (dx Lo + ntok Lo)); [lia|]. rewrite Nat.eqb_refl. reflexivity.
Qed.

Lemma scores_gated : forall Lo Ly B v i Z (f : vec -> Q), (i < nq Lo)%nat ->
  (forall zs t, agree zs (column Lo v (gated Ly B v t) zero t) -> f zs == gated Ly B v t i) ->
  same_state Z (stream Lo v (gated Ly B v) zero) ->
  agree (map f Z) (map (fun t => gated Ly B v t i) (seq 0 (ntok Lo))).
Proof.
  intros Lo Ly B v i Z f Hi Hf HZ. unfold same_state, stream in HZ.
  apply (Forall2_map_map _ _ _ _ agree Qeq _ _ _ _ _ HZ). intros z t _ Hz. apply Hf. exact Hz.
Qed.

Lemma slot_entry : forall Lo v s o t zs k, (k < width Lo)%nat -> agree zs (column Lo v s o t) ->
  dot (unit_vec (width Lo) k) zs == colf Lo v s o t k.
Proof.
  intros. rewrite column_colf in H0. unfold unit_vec. rewrite (dz_single _ k 1 zs _ H H0). ring.
Qed.

Lemma forall2_len : forall A B (R : A -> B -> Prop) l l', Forall2 R l l' -> length l = length l'.
Proof. intros A B R l l' H. induction H; simpl; auto. Qed.

Lemma head_column : forall Lo n Ly B v i Z z t0, fits Lo n Ly -> bounded Ly B v -> (i < length Ly)%nat ->
  same_state Z (stream Lo v (gated Ly B v) zero) -> agree z (column Lo v (gated Ly B v t0) zero t0) ->
  agree (head_out (max_head Lo i) Z z)
        (vec_of (width Lo) (fun p => ind (p =? slotO Lo i) (eval_unit (nth i Ly []) v))).
Proof.
  intros Lo n Ly B v i Z z t0 Hfit Hb Hi HZ Hz.
  pose proof Hfit as [_ [_ [_ [Hqn Htok]]]].
  assert (HT : (0 < ntok Lo)%nat).
  { rewrite Forall_forall in Htok. specialize (Htok (nth i Ly []) (nth_In _ _ Hi)). lia. }
  assert (HSi : (slotS Lo i < width Lo)%nat) by (unfold slotS, width; lia).
  assert (HOi : (slotO Lo i < width Lo)%nat) by (unfold slotO, width; lia).
  assert (HC : (slotC Lo < width Lo)%nat) by (unfold slotC, width; lia).
  set (G := map (fun t => gated Ly B v t i) (seq 0 (ntok Lo))).
  assert (HG : G <> []) by (unfold G; destruct (ntok Lo) eqn:E; [lia|]; simpl; discriminate).
  assert (Hc : dot (unit_vec (width Lo) (slotC Lo)) z == 1) by (rewrite (slot_entry _ _ _ _ _ _ _ HC Hz), colf_C; reflexivity).
  assert (Hs : forall zs t, agree zs (column Lo v (gated Ly B v t) zero t) ->
               dot (unit_vec (width Lo) (slotS Lo i)) zs == gated Ly B v t i).
  { intros zs t Hzs. rewrite (slot_entry _ _ _ _ _ _ _ HSi Hzs), colf_S by lia. reflexivity. }
  set (scores := map (fun zs => dot (mat_vec [unit_vec (width Lo) (slotS Lo i)] zs)
                                    (mat_vec [unit_vec (width Lo) (slotC Lo)] z)) Z).
  assert (Hscores : agree scores G).
  { apply (scores_gated Lo Ly B v i Z _ ltac:(lia)); [|exact HZ].
    intros zs t Hzs. cbn [mat_vec map dot]. rewrite Hc, (Hs zs t Hzs). ring. }
  assert (Hvals : agree (map (fun zs => dot (unit_vec (width Lo) (slotS Lo i)) zs) Z) G).
  { apply (scores_gated Lo Ly B v i Z _ ltac:(lia)); [exact Hs|exact HZ]. }
  assert (HlZ : length Z = ntok Lo).
  { unfold same_state, stream in HZ. apply forall2_len in HZ. rewrite HZ, map_length, seq_length. reflexivity. }
  assert (HY : dot (hardmax scores) (map (fun zs => dot (unit_vec (width Lo) (slotS Lo i)) zs) Z)
               == eval_unit (nth i Ly []) v).
  { rewrite (dot_proper_l _ _ _ (hardmax_proper _ _ Hscores)), (dot_proper_r _ _ _ Hvals).
    rewrite hardmax_value_is_score by exact HG. unfold G. apply (max_gated Lo n); assumption. }
  unfold head_out. cbv zeta. cbn [max_head WQ WK WV WO]. fold scores.
  change (map (mat_vec [unit_vec (width Lo) (slotS Lo i)]) Z)
    with (map (fun zs => [dot (unit_vec (width Lo) (slotS Lo i)) zs]) Z).
  pose proof (lin_comb_single (hardmax scores) Z (fun zs => dot (unit_vec (width Lo) (slotS Lo i)) zs))
    as HL.
  assert (Hlw : length (hardmax scores) = length Z) by (unfold hardmax, scores; rewrite !map_length; reflexivity).
  assert (HZne : Z <> []) by (destruct Z; simpl in HlZ; [lia|discriminate]).
  specialize (HL Hlw HZne).
  set (y := lin_comb (hardmax scores) (map (fun zs => [dot (unit_vec (width Lo) (slotS Lo i)) zs]) Z)) in *.
  unfold mat_vec. rewrite map_map. unfold unit_vec, vec_of. rewrite map_map. fold (vec_of (width Lo) (fun p => dot [ind (p =? slotO Lo i) 1] y)).
  fold (vec_of (width Lo) (fun p => ind (p =? slotO Lo i) (eval_unit (nth i Ly []) v))).
  apply agree_nth; [rewrite !length_vec_of; reflexivity|]. intros p Hp. rewrite length_vec_of in Hp.
  rewrite !nth_vec_of by exact Hp. rewrite (dot_proper_r _ _ _ HL). cbn [dot]. rewrite HY.
  unfold ind. destruct (p =? slotO Lo i); ring.
Qed.

Lemma vec_of_agree : forall m f g, (forall p, (p < m)%nat -> f p == g p) -> agree (vec_of m f) (vec_of m g).
Proof.
  intros m f g H. apply agree_nth; [rewrite !length_vec_of; reflexivity|]. intros p Hp.
  rewrite length_vec_of in Hp. rewrite !nth_vec_of by exact Hp. apply H. exact Hp.
Qed.

Lemma fold_heads : forall Lo Z z (g : nat -> nat -> Q) (l : list nat) acc,
  length acc = width Lo ->
  (forall i, In i l -> agree (head_out (max_head Lo i) Z z) (vec_of (width Lo) (g i))) ->
  agree (fold_left (fun acc h => vadd acc (head_out h Z z)) (map (max_head Lo) l) acc)
        (vec_of (width Lo) (fun p => nthq acc p + lsum (fun i => g i p) l)).
Proof.
  intros Lo Z z g l. induction l as [|i l IH]; intros acc Hacc H; simpl.
  - apply agree_nth; [rewrite length_vec_of; exact Hacc|]. intros p Hp. rewrite Hacc in Hp.
    rewrite nth_vec_of by exact Hp. unfold lsum. simpl. ring.
  - pose proof (H i (or_introl eq_refl)) as Hi. pose proof Hi as Hi'. apply nth_agree in Hi' as [Li Ni].
    rewrite length_vec_of in Li.
    eapply agree_trans.
    + apply IH; [rewrite length_vadd; lia|]. intros j Hj. apply H. right. exact Hj.
    + apply vec_of_agree. intros p Hp. rewrite nth_vadd by lia. rewrite Ni, nth_vec_of by exact Hp.
      unfold lsum. simpl. ring.
Qed.

Lemma colf_not_O : forall Lo v s o o' t p, (p < slotO Lo 0)%nat -> colf Lo v s o t p = colf Lo v s o' t p.
Proof.
  intros Lo v s o o' t p H. unfold colf.
  destruct (p <? dx Lo)%nat; [reflexivity|]. destruct (p <? slotC Lo)%nat; [reflexivity|].
  destruct (p =? slotC Lo)%nat; [reflexivity|].
  destruct (Nat.ltb_spec p (slotO Lo 0)); [reflexivity|lia].
Qed.

Lemma max_column : forall Lo n Ly B v Z z t, fits Lo n Ly -> bounded Ly B v ->
  same_state Z (stream Lo v (gated Ly B v) zero) -> agree z (column Lo v (gated Ly B v t) zero t) ->
  agree (fold_left (fun acc h => vadd acc (head_out h Z z)) (map (max_head Lo) (seq 0 (length Ly))) z)
        (column Lo v (gated Ly B v t) (unit_values Ly v) t).
Proof.
  intros Lo n Ly B v Z z t Hfit Hb HZ Hz.
  pose proof Hfit as [_ [_ [_ [Hqn _]]]].
  pose proof Hz as Hz'. apply nth_agree in Hz' as [L N]. rewrite column_colf, length_vec_of in L.
  eapply agree_trans.
  - apply (fold_heads Lo Z z (fun i p => ind (p =? slotO Lo i) (eval_unit (nth i Ly []) v))); [exact L|].
    intros i Hi. apply in_seq in Hi. apply (head_column Lo n Ly B v i Z z t); auto. lia.
  - rewrite column_colf. apply vec_of_agree. intros p Hp. rewrite N, column_colf, nth_vec_of by exact Hp.
    rewrite (lsum_seq _ (length Ly) 0). cbn [Nat.add]. unfold slotO at 1. rewrite sumq_ind_shift.
    destruct (Nat.ltb_spec p (dx Lo + ntok Lo + 1 + nq Lo)) as [H1|H1].
    + replace ((dx Lo + ntok Lo + 1 + nq Lo <=? p) && _) with false
        by (symmetry; apply andb_false_iff; left; apply Nat.leb_gt; lia).
      rewrite (colf_not_O Lo v (gated Ly B v t) zero (unit_values Ly v) t p) by (unfold slotO; lia). ring.
    + remember (p - (dx Lo + ntok Lo + 1 + nq Lo))%nat as i eqn:Ei.
      replace p with (slotO Lo i) by (unfold slotO; lia).
      assert (Hi : (i < nq Lo)%nat) by (unfold width in Hp; lia).
      rewrite !colf_O by exact Hi. unfold zero, unit_values.
      replace (dx Lo + ntok Lo + 1 + nq Lo <=? slotO Lo i)%nat with true by (symmetry; apply Nat.leb_le; unfold slotO; lia).
      replace (slotO Lo i - (dx Lo + ntok Lo + 1 + nq Lo))%nat with i by (unfold slotO; lia).
      destruct (i <? length Ly)%nat; cbn [andb]; ring.
Qed.

(* Block 2, for every layer that fits the layout *)
Theorem max_lemma_proof : max_lemma.
Proof.
  intros Lo n Ly B v Z Hfit Hv Hb HZ.
  rewrite max_block_heads. unfold apply_block. cbn [attn ff]. unfold attend.
  pose proof HZ as HZ'. unfold same_state, stream in HZ' |- *.
  apply (Forall2_map_map _ _ _ _ agree agree _ _ _ _ _ HZ').
  intros z t _ Hz. apply (max_column Lo n Ly B v Z z t); assumption.
Qed.
