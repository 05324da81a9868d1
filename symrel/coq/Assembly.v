(* Assembly.v: the general theorem assembled from the lemmas of Correctness.v, by induction
   over the layers. Proved here: compile_correct follows from gating_lemma and max_lemma
   (move_lemma, embed_lemma and readout_lemma are proved in Move.v and Embed.v). *)
From Coq Require Import QArith Lqa List Bool Arith Lia.
Import ListNotations.
From Symrel Require Import Semantics Compiler Bounds Correctness Linalg Move Embed.
Open Scope Q_scope.

Lemma list_max_ge : forall l a, In a l -> (a <= list_max l)%nat.
Proof.
  induction l as [|b l IH]; intros a H; simpl in H; [contradiction|]. unfold list_max in *. simpl.
  destruct H as [<-|H]; [lia|]. specialize (IH a H). lia.
Qed.

Lemma unit_values_layer : forall Ly v, map (unit_values Ly v) (seq 0 (length Ly)) = eval_layer Ly v.
Proof.
  intros Ly v. apply nth_ext with (d := 0) (d' := 0).
  - rewrite map_length, seq_length. unfold eval_layer. rewrite map_length. reflexivity.
  - intros k Hk. rewrite map_length, seq_length in Hk.
    rewrite (nth_map_any _ _ _ (seq 0 (length Ly)) k O 0) by (rewrite seq_length; exact Hk).
    rewrite (@List.seq_nth (length Ly) O k O Hk). simpl. unfold unit_values.
    replace (k <? length Ly)%nat with true by (symmetry; apply Nat.ltb_lt; exact Hk).
    unfold eval_layer. rewrite (nth_map_any _ _ _ Ly k [] 0) by exact Hk. reflexivity.
Qed.

(* the layers that a layout must hold *)
Definition holds (Lo : layout) (Ls : list mlayer) : Prop :=
  forall Ly, In Ly Ls -> (length Ly <= dx Lo)%nat /\ (length Ly <= nq Lo)%nat /\
                         Forall (fun u => (length u < ntok Lo)%nat) Ly.

Lemma layers_run : gating_lemma -> max_lemma -> forall Lo Ls n D Bs v Z,
  holds Lo Ls -> (n <= dx Lo)%nat -> length v = n ->
  layers_ok n D Ls Bs = true -> pieces_bounded v Ls Bs ->
  same_state Z (stream Lo v (fun _ => zero) zero) ->
  same_state (fold_left apply_block (layer_blocks Lo n Ls Bs) Z)
             (stream Lo (fold_left (fun v L => eval_layer L v) Ls v) (fun _ => zero) zero).
Proof.
  intros G M Lo Ls. induction Ls as [|Ly Ls IH]; intros n D Bs v Z Hh Hn Hv Hok Hb HZ.
  - destruct Bs; exact HZ.
  - destruct Bs as [|B Bs]; [discriminate|]. simpl in Hok, Hb.
    apply andb_true_iff in Hok as [Hok Hrest]. apply andb_true_iff in Hok as [Hwf _].
    destruct Hb as [HbL Hbs].
    destruct (Hh Ly (or_introl eq_refl)) as [Hdx [Hnq Htok]].
    assert (Hfit : fits Lo n Ly) by (repeat split; assumption).
    cbn [layer_blocks fold_left].
    pose proof (G Lo n Ly B v Z Hfit Hv HbL HZ) as Z1.
    pose proof (M Lo n Ly B v _ Hfit Hv HbL Z1) as Z2.
    pose proof (move_lemma_proof Lo n Ly v (gated Ly B v) (unit_values Ly v)
      (apply_block (apply_block Z (gating_block Lo B Ly)) (max_block Lo Ly)) Hfit Hv) as Z3.
    rewrite unit_values_layer in Z3.
    apply (IH (length Ly) (next_box D Ly) Bs).
    + intros Ly' H'. apply Hh. right. exact H'.
    + exact Hdx.
    + unfold eval_layer. apply map_length.
    + exact Hrest.
    + exact Hbs.
    + apply Z3; [| |exact Z2].
      * intros t i Hi. unfold gated. replace (i <? length Ly)%nat with false by (symmetry; apply Nat.ltb_ge; lia). reflexivity.
      * intros i Hi. unfold unit_values. replace (i <? length Ly)%nat with false by (symmetry; apply Nat.ltb_ge; lia). reflexivity.
Qed.

Lemma layout_holds : forall N, holds (layout_of N) (mx_layers N).
Proof.
  intros N Ly H. unfold layout_of. simpl.
  assert (Hw : (length Ly <= list_max (map (@length munit) (mx_layers N)))%nat)
    by (apply list_max_ge, in_map; exact H).
  repeat split; try lia.
  apply Forall_forall. intros u Hu.
  assert ((length u <= list_max (map (@length piece) Ly))%nat) by (apply list_max_ge, in_map; exact Hu).
  assert ((list_max (map (@length piece) Ly) <= list_max (map (fun L => list_max (map (@length piece) L)) (mx_layers N)))%nat)
    by (apply list_max_ge; apply (in_map (fun L => list_max (map (@length piece) L))); exact H).
  lia.
Qed.

Lemma length_layers : forall Ls v, length (fold_left (fun v L => eval_layer L v) Ls v) = fold_left (fun _ L => length L) Ls (length v).
Proof.
  induction Ls as [|L Ls IH]; intros v; simpl; [reflexivity|]. rewrite IH. unfold eval_layer. rewrite map_length. reflexivity.
Qed.

Lemma in_box_length : forall D x, in_box D x -> length D = length x.
Proof. intros D x H. induction H; simpl; auto. Qed.

Theorem compile_correct_from_blocks : gating_lemma -> max_lemma -> compile_correct.
Proof.
  intros G M N D Bs Hc x Hx.
  pose proof (certify_sound N D Bs x Hc Hx) as Hb.
  unfold certify in Hc. apply andb_true_iff in Hc as [Hc Hro]. apply andb_true_iff in Hc as [Hc Hl].
  apply andb_true_iff in Hc as [HD _]. apply Nat.eqb_eq in HD.
  assert (Hxl : length x = mx_input N) by (rewrite <- HD; symmetry; exact (in_box_length D x Hx)).
  unfold eval_transformer, eval_maxout.
  set (h := fold_left (fun v L => eval_layer L v) (mx_layers N) x).
  assert (Hrun : same_state (fold_left apply_block (t_blocks (compile N Bs)) (embed (compile N Bs) x))
                            (stream (layout_of N) h (fun _ => zero) zero)).
  { apply (layers_run G M (layout_of N) (mx_layers N) (mx_input N) D Bs x).
    - apply layout_holds.
    - apply layout_dx_input.
    - exact Hxl.
    - exact Hl.
    - exact Hb.
    - apply embed_lemma_proof. exact Hxl. }
  apply (readout_lemma_proof N Bs h _); [|exact Hro|exact Hrun].
  unfold h, last_width. rewrite length_layers, Hxl. reflexivity.
Qed.

Lemma relu_to_maxout_input : forall R, mx_input (relu_to_maxout R) = rn_input R.
Proof.
  intros R. unfold relu_to_maxout. destruct (relu_layers (rn_input R) None (rn_layers R)) as [[|Ly Ls] [[W b]|]];
    reflexivity.
Qed.

Theorem compile_relu_correct_from_blocks :
  gating_lemma -> max_lemma -> relu_to_maxout_lemma -> compile_relu_correct.
Proof.
  intros G M RL R D Bs Hc x Hx. unfold certify_relu in Hc. apply andb_true_iff in Hc as [Hwf Hc].
  pose proof (compile_correct_from_blocks G M (relu_to_maxout R) D Bs Hc x Hx) as H.
  apply (agree_trans _ _ _ H). apply RL; [exact Hwf|].
  unfold certify in Hc. apply andb_true_iff in Hc as [Hc _]. apply andb_true_iff in Hc as [Hc _].
  apply andb_true_iff in Hc as [HD _]. apply Nat.eqb_eq in HD.
  rewrite <- relu_to_maxout_input, <- HD. symmetry. apply in_box_length. exact Hx.
Qed.
