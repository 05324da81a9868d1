(* Bounds.v: what [certify] returning true means, proved: on every x of the box, every
   piece l_ij of layer l satisfies -B_l <= l_ij(v_l) <= B_l at the layer's actual input v_l
   (the hypothesis of Block 1's gating, THEORY.md section 1). *)
From Coq Require Import QArith Qminmax Lqa List Bool Arith ZArith Lia.
Import ListNotations.
From Symrel Require Import Semantics Compiler.
Open Scope Q_scope.

(* the gating hypothesis along the layers of a net, at the input v of the first one *)
Fixpoint pieces_bounded (v : vec) (Ls : list mlayer) (Bs : list Q) : Prop :=
  match Ls, Bs with
  | Ly :: Ls', B :: Bs' =>
      (forall u p, In u Ly -> In p u -> - B <= eval_piece p v /\ eval_piece p v <= B)
      /\ pieces_bounded (eval_layer Ly v) Ls' Bs'
  | _, _ => True
  end.

Lemma qexpand_eq : forall x k, qexpand x k == x.
Proof. intros [n d] k. unfold qexpand, Qeq. simpl. rewrite Pos2Z.inj_mul. ring. Qed.

Lemma over_eq : forall d x, over d x == x.
Proof. intros d x. unfold over. destruct (Pos.eqb (Qden x) d); [reflexivity|apply qexpand_eq]. Qed.

Lemma qadd_eq : forall a b, qadd a b == a + b.
Proof.
  intros [na da] [nb db]. unfold qadd. simpl. destruct (Pos.eqb_spec da db) as [<-|]; [|reflexivity].
  unfold Qeq, Qplus. simpl. rewrite Pos2Z.inj_mul. ring.
Qed.

Lemma qle_eq : forall a b, qle a b = Qle_bool a b.
Proof.
  intros [na da] [nb db]. unfold qle, Qle_bool. simpl. destruct (Pos.eqb_spec da db) as [<-|]; [|reflexivity].
  assert (0 < Z.pos da)%Z by reflexivity.
  destruct (Z.leb_spec na nb), (Z.leb_spec (na * Z.pos da) (nb * Z.pos da)); try reflexivity; nia.
Qed.

(* a.x lies between a.l and a.u, whichever is the smaller, when l <= x <= u *)
Lemma mul_between : forall a l x u, l <= x -> x <= u ->
  (a * l <= a * u -> a * l <= a * x /\ a * x <= a * u) /\
  (~ a * l <= a * u -> a * u <= a * x /\ a * x <= a * l).
Proof. intros a l x u H1 H2. split; intros H; destruct (Qlt_le_dec a 0); split; nra. Qed.

Lemma range_lin_sound : forall W d w D v, in_box D v ->
  fst (range_lin W d w D) <= dot w v /\ dot w v <= snd (range_lin W d w D).
Proof.
  induction w as [|a w IH]; intros D v HD.
  - simpl. split; apply Qle_refl.
  - destruct HD as [|[l u] x D' v' Hx HD'].
    + simpl. split; apply Qle_refl.
    + cbn [range_lin dot fst snd] in Hx |- *. destruct Hx as [Hl Hu].
      specialize (IH D' v' HD'). destruct (range_lin W d w D') as [lo hi]. cbn [fst snd] in IH |- *.
      destruct (Z.eqb_spec (Qnum a) 0) as [Ha|Ha].
      { assert (Hz : a * x == 0) by (unfold Qeq, Qmult; simpl; rewrite Ha; reflexivity).
        cbn [fst snd]. rewrite Hz. destruct IH. split; lra. }
      assert (Hal : over W a * over d l == a * l) by (rewrite !over_eq; reflexivity).
      assert (Hau : over W a * over d u == a * u) by (rewrite !over_eq; reflexivity).
      destruct (mul_between a l x u Hl Hu) as [Hle Hgt]. rewrite qle_eq.
      destruct (Qle_bool (over W a * over d l) (over W a * over d u)) eqn:E;
        [apply Qle_bool_iff in E|assert (E' : ~ a * l <= a * u) by
           (intro H'; rewrite <- Hal, <- Hau in H'; apply Qle_bool_iff in H'; congruence)];
        cbn [fst snd]; rewrite !qadd_eq; destruct IH.
      * rewrite Hal, Hau in E. destruct (Hle E). rewrite Hal, Hau. split; lra.
      * destruct (Hgt E'). rewrite Hal, Hau. split; lra.
Qed.

Lemma range_piece_sound : forall W d D p v, in_box D v ->
  fst (range_piece W d D p) <= eval_piece p v /\ eval_piece p v <= snd (range_piece W d D p).
Proof.
  intros W d D [w c] v HD. unfold range_piece, eval_piece. cbn [fst snd].
  pose proof (range_lin_sound W d w D v HD). destruct (range_lin W d w D) as [lo hi]. cbn [fst snd] in *.
  rewrite !qadd_eq, !over_eq. destruct H. split; lra.
Qed.

(* ---- max_list *)
Lemma qmax_spec : forall a b, a <= qmax a b /\ b <= qmax a b /\ (qmax a b == a \/ qmax a b == b).
Proof.
  intros a b. unfold qmax. destruct (Qle_bool a b) eqn:E.
  - apply Qle_bool_iff in E. split; [exact E|]. split; [apply Qle_refl|]. right; reflexivity.
  - assert (~ a <= b) by (intro H; apply Qle_bool_iff in H; congruence).
    split; [apply Qle_refl|]. split; [lra|]. left; reflexivity.
Qed.

Lemma fold_qmax_ge_acc : forall r a, a <= fold_left qmax r a.
Proof.
  induction r as [|b r IH]; intros a; simpl; [apply Qle_refl|].
  eapply Qle_trans; [apply (proj1 (qmax_spec a b))|apply IH].
Qed.

Lemma fold_qmax_ge : forall r a e, In e r -> e <= fold_left qmax r a.
Proof.
  induction r as [|b r IH]; intros a e He; simpl in *; [contradiction|].
  destruct He as [<-|He].
  - eapply Qle_trans; [apply (proj1 (proj2 (qmax_spec a b)))|apply fold_qmax_ge_acc].
  - apply IH; exact He.
Qed.

Lemma max_list_ge : forall l e, In e l -> e <= max_list l.
Proof.
  intros [|a r] e He; simpl in *; [contradiction|].
  destruct He as [<-|He]; [apply fold_qmax_ge_acc|apply fold_qmax_ge; exact He].
Qed.

Lemma fold_qmax_mono : forall r r' a a', a <= a' -> Forall2 Qle r r' ->
  fold_left qmax r a <= fold_left qmax r' a'.
Proof.
  induction r as [|b r IH]; intros r' a a' Ha Hr; inversion Hr; subst; simpl; [exact Ha|].
  apply IH; [|assumption]. unfold qmax.
  destruct (Qle_bool a b) eqn:E1, (Qle_bool a' y) eqn:E2;
    try apply Qle_bool_iff in E1; try apply Qle_bool_iff in E2; try assumption.
  - assert (~ a' <= y) by (intro H'; apply Qle_bool_iff in H'; congruence). lra.
  - assert (~ a <= b) by (intro H'; apply Qle_bool_iff in H'; congruence). lra.
Qed.

Lemma max_list_mono : forall l l', Forall2 Qle l l' -> max_list l <= max_list l'.
Proof.
  intros l l' H. destruct H as [|a b r r' Hab Hr]; simpl; [apply Qle_refl|].
  apply fold_qmax_mono; assumption.
Qed.

Lemma fold_qmax_le : forall r a B, a <= B -> (forall e, In e r -> e <= B) -> fold_left qmax r a <= B.
Proof.
  induction r as [|b r IH]; intros a B Ha Hr; simpl; [exact Ha|].
  apply IH; [|intros e He; apply Hr; right; exact He].
  unfold qmax. destruct (Qle_bool a b); [apply Hr; left; reflexivity|exact Ha].
Qed.

(* ---- one layer: its pieces within [-B, B], and its outputs within the next box *)
Lemma layer_ok_sound : forall D B Ly v, in_box D v -> layer_ok D B Ly = true ->
  forall u p, In u Ly -> In p u -> - B <= eval_piece p v /\ eval_piece p v <= B.
Proof.
  intros D B Ly v HD Hok u p Hu Hp. unfold layer_ok, ranges_ok, layer_ranges in Hok.
  rewrite forallb_forall in Hok. specialize (Hok _ (in_map (map (range_piece (layer_den Ly) (box_den D) D)) _ _ Hu)).
  rewrite forallb_forall in Hok. specialize (Hok _ (in_map (range_piece (layer_den Ly) (box_den D) D) _ _ Hp)).
  pose proof (range_piece_sound (layer_den Ly) (box_den D) D p v HD).
  destruct (range_piece (layer_den Ly) (box_den D) D p) as [lo hi]. apply andb_true_iff in Hok. destruct Hok as [H1 H2].
  apply Qle_bool_iff in H1. apply Qle_bool_iff in H2. simpl in H, H1, H2. destruct H. split; lra.
Qed.

Lemma next_box_sound : forall D Ly v, in_box D v -> in_box (next_box D Ly) (eval_layer Ly v).
Proof.
  intros D Ly v HD. unfold next_box, box_of, layer_ranges, eval_layer, in_box. rewrite map_map.
  generalize (layer_den Ly) (box_den D). intros W d.
  induction Ly as [|u Ly IH]; simpl; constructor; [|exact IH]. simpl. unfold eval_unit.
  split; apply max_list_mono; rewrite !map_map; induction u as [|p u IHu]; simpl; constructor;
    try exact IHu; pose proof (range_piece_sound W d D p v HD); destruct H; assumption.
Qed.

Lemma layers_ok_sound : forall Ls n D Bs v, in_box D v -> layers_ok n D Ls Bs = true ->
  pieces_bounded v Ls Bs.
Proof.
  induction Ls as [|Ly Ls IH]; intros n D Bs v HD Hok; simpl; [exact I|].
  destruct Bs as [|B Bs]; [discriminate|]. simpl in Hok.
  apply andb_true_iff in Hok as [Hok Hrest]. apply andb_true_iff in Hok as [_ Hly].
  split; [exact (layer_ok_sound D B Ly v HD Hly)|].
  exact (IH _ _ _ _ (next_box_sound D Ly v HD) Hrest).
Qed.

(* certify's true means: on every x of the box, every piece of layer l is within [-B_l, B_l]
   at the layer's input *)
Theorem certify_sound : forall N D Bs x, certify N D Bs = true -> in_box D x ->
  pieces_bounded x (mx_layers N) Bs.
Proof.
  intros N D Bs x Hc Hx. unfold certify in Hc.
  apply andb_true_iff in Hc as [Hc _]. apply andb_true_iff in Hc as [_ Hl].
  exact (layers_ok_sound _ _ _ _ _ Hx Hl).
Qed.
