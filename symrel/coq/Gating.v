(* Gating.v: Block 1 proved: each piece is gated onto its own token (gating_lemma of Correctness.v). *)

From Coq Require Import QArith Lqa List Bool Arith Lia.
Import ListNotations.
From Symrel Require Import Semantics Compiler Bounds Correctness Linalg Move Embed Assembly.
Open Scope Q_scope.

Lemma lsum_combine_seq : forall A (F : nat * A -> Q) (l : list A) (d : A) s,
  lsum F (combine (seq s (length l)) l) == sumq (length l) (fun k => F ((s + k)%nat, nth k l d)).
Proof.
  induction l as [|a l IH]; intros d s; simpl; [reflexivity|]. unfold lsum in *. simpl.
  rewrite (IH d (S s)). rewrite Nat.add_0_r.
  rewrite (sumq_ext (length l) (fun k => F ((S s + k)%nat, nth k l d)) (fun p => F ((s + S p)%nat, nth p l d)));
    [reflexivity|]. intros p _. replace (S s + p)%nat with (s + S p)%nat by lia. reflexivity.
Qed.

Ltac fin := repeat rewrite Qred_correct; ring.

(* a row of W1 of the gating block, dotted with token t's column of the layer input v *)
Lemma gate_entry : forall Lo B j w c v t z,
  (length w <= dx Lo)%nat -> length v = length w -> (S j < ntok Lo)%nat -> (t < ntok Lo)%nat ->
  agree z (column Lo v zero zero t) ->
  dot (vec_of (width Lo) (fun p => if p <? dx Lo then nth p w 0
                                   else if p =? slotP Lo (S j) then Qred (2 * B)
                                   else ind (p =? slotC Lo) (Qred (c - B)))) z
  == dot w v + ind (t =? S j) (2 * B) + (c - B).
Proof.
  intros Lo B j w c v t z Hw Hv Hj Ht H. rewrite column_colf in H.
  rewrite (dot_row_col _ _ z _ H).
  rewrite (sumq_ext (width Lo) _ (fun p => ((if p <? dx Lo then nth p w 0 * nth p v 0 else 0)
                                            + ind (slotP Lo (S j) =? p) (ind (t =? S j) (2 * B)))
                                           + ind (slotC Lo =? p) (c - B))).
  2:{ intros p Hp. unfold colf, ind, slotP, slotC, width in *. 
      destruct (Nat.ltb_spec p (dx Lo)).
      - destruct (Nat.eqb_spec (dx Lo + S j) p); [lia|]. destruct (Nat.eqb_spec (dx Lo + ntok Lo) p); [lia|]. fin.
      - destruct (Nat.eqb_spec p (dx Lo + S j)).
        + subst. destruct (Nat.eqb_spec (dx Lo + S j) (dx Lo + S j)); [|lia].
          destruct (Nat.eqb_spec (dx Lo + ntok Lo) (dx Lo + S j)); [lia|].
          destruct (Nat.ltb_spec (dx Lo + S j) (dx Lo + ntok Lo)); [|lia].
          destruct (Nat.eqb_spec (dx Lo + S j) (dx Lo + t)), (Nat.eqb_spec t (S j)); try lia; fin.
        + destruct (Nat.eqb_spec (dx Lo + S j) p); [lia|].
          destruct (Nat.eqb_spec p (dx Lo + ntok Lo)).
          * subst. destruct (Nat.eqb_spec (dx Lo + ntok Lo) (dx Lo + ntok Lo)); [|lia].
            destruct (Nat.ltb_spec (dx Lo + ntok Lo) (dx Lo + ntok Lo)); [lia|]. fin.
          * destruct (Nat.eqb_spec (dx Lo + ntok Lo) p); [lia|].
            destruct (p <? dx Lo + ntok Lo)%nat; [fin|].
            destruct (p <? _)%nat; unfold zero; fin. }
  rewrite !sumq_plus, !sumq_ind.
  rewrite (sumq_prefix (width Lo) (length w)) by (unfold width; lia || (intros p Hp; destruct (Nat.ltb_spec p (dx Lo)); [rewrite nth_overflow by lia; ring|reflexivity])).
  rewrite dot_sumq by lia.
  rewrite (sumq_ext (length w) _ (fun p => nthq w p * nthq v p)) by (intros p Hp; destruct (Nat.ltb_spec p (dx Lo)); [reflexivity|lia]).
  unfold width, slotP, slotC.
  destruct (Nat.ltb_spec (dx Lo + S j) (dx Lo + ntok Lo + 1 + 2 * nq Lo)); [|lia].
  destruct (Nat.ltb_spec (dx Lo + ntok Lo) (dx Lo + ntok Lo + 1 + 2 * nq Lo)); [|lia]. ring.
Qed.

Definition gate_row (Lo : layout) (B : Q) (ijp : nat * nat * piece) : vec :=
  let '(i, j, (w, c)) := ijp in
  vec_of (width Lo) (fun p => if p <? dx Lo then nth p w 0
                              else if p =? slotP Lo (S j) then Qred (2 * B)
                              else ind (p =? slotC Lo) (Qred (c - B))).

Definition gate_value (B : Q) (v : vec) (t : nat) (ijp : nat * nat * piece) : Q :=
  let '(i, j, p) := ijp in ind (t =? S j) (eval_piece p v + B).

Lemma gate_hidden : forall Lo B v t z (ps : list (nat * nat * piece)),
  (t < ntok Lo)%nat -> agree z (column Lo v zero zero t) ->
  (forall i j w c, In (i, j, (w, c)) ps ->
     (length w <= dx Lo)%nat /\ length v = length w /\ (S j < ntok Lo)%nat
     /\ - B <= eval_piece (w, c) v /\ eval_piece (w, c) v <= B) ->
  agree (map relu (affine (map (gate_row Lo B) ps) (map (fun _ => 0) ps) z)) (map (gate_value B v t) ps).
Proof.
  intros Lo B v t z ps Ht Hz. induction ps as [|[[i j] [w c]] ps IH]; intros H; simpl; [constructor|].
  unfold affine, mat_vec in *. simpl. constructor.
  - destruct (H i j w c (or_introl eq_refl)) as [Hw [Hv [Hj [Hlo Hhi]]]].
    unfold eval_piece in *; simpl in Hlo, Hhi.
    pose proof (gate_entry Lo B j w c v t z Hw Hv Hj Ht Hz) as E. unfold gate_row.
    unfold ind in *. destruct (Nat.eqb_spec t (S j)).
    + rewrite (relu_proper _ (dot w v + c + B)) by (rewrite E; ring). apply relu_pos. cbn [fst snd] in *. lra.
    + rewrite (relu_proper _ (dot w v + c - B)) by (rewrite E; ring). apply relu_neg. cbn [fst snd] in *. lra.
  - apply IH. intros i' j' w' c' Hin. apply (H i' j' w' c'). right. exact Hin.
Qed.

Lemma dot_maps : forall A (f g : A -> Q) l, dot (map f l) (map g l) == lsum (fun x => f x * g x) l.
Proof. induction l as [|a l IH]; simpl; [reflexivity|]. unfold lsum in *. simpl. rewrite IH. reflexivity. Qed.

Definition unit_of (Lo : layout) (p : nat) (ijp : nat * nat * piece) : Q :=
  let '(i, _, _) := ijp in ind (p =? slotS Lo i) 1.

Lemma gate_sum : forall Lo B v t p (Ly : mlayer),
  lsum (fun ijp => unit_of Lo p ijp * gate_value B v t ijp) (pieces_of Ly)
  == sumq (length Ly) (fun i => ind (p =? slotS Lo i)
        (sumq (length (nth i Ly [])) (fun j => ind (t =? 1 + j) (eval_piece (nth j (nth i Ly []) ([], 0)) v + B)))).
Proof.
  intros Lo B v t p Ly. unfold pieces_of, enum. rewrite lsum_flat_map.
  rewrite (lsum_combine_seq _ _ Ly [] 0). apply sumq_ext. intros i Hi. cbn [fst snd Nat.add].
  rewrite lsum_map. rewrite (lsum_combine_seq _ _ (nth i Ly []) ([], 0) 0). cbn [Nat.add].
  unfold ind at 1. destruct (p =? slotS Lo i) eqn:E.
  - apply sumq_ext. intros j _. unfold unit_of, gate_value. cbn [fst snd]. unfold ind.
    rewrite E. destruct (t =? S j); simpl; ring.
  - apply sumq_zero. intros j _. unfold unit_of, gate_value. cbn [fst snd]. unfold ind.
    rewrite E. ring.
Qed.

Lemma in_enum : forall A (l : list A) k a, In (k, a) (enum l) -> In a l /\ (k < length l)%nat.
Proof.
  intros A l k a H. unfold enum in H. split.
  - exact (in_combine_r _ _ _ _ H).
  - apply in_combine_l, in_seq in H. lia.
Qed.

Lemma in_pieces_of : forall Ly i j w c, In (i, j, (w, c)) (pieces_of Ly) ->
  exists u, In u Ly /\ In (w, c) u /\ (j < length u)%nat.
Proof.
  intros Ly i j w c H. unfold pieces_of in H. apply in_flat_map in H as [[i' u] [Hu Hin]].
  apply in_map_iff in Hin as [[j' pc] [Eq Hjp]]. cbn [fst snd] in Eq. inversion Eq. subst.
  apply in_enum in Hu as [Hu _]. apply in_enum in Hjp as [Hp Hj]. exists u. auto.
Qed.

Lemma nth_error_nth' : forall A (l : list A) k d, (k < length l)%nat -> nth_error l k = Some (nth k l d).
Proof. intros. apply nth_error_nth'. exact H. Qed.

Definition gate_ffn (Lo : layout) (B : Q) (Ly : mlayer) : ffn :=
  {| W1 := map (gate_row Lo B) (pieces_of Ly);
     b1 := map (fun _ => 0) (pieces_of Ly);
     W2 := vec_of (width Lo) (fun p => map (unit_of Lo p) (pieces_of Ly));
     b2 := vec_of (width Lo) (fun p => ind ((slotS Lo 0 <=? p) && (p <? slotS Lo (length Ly))) (Qred (- B))) |}.

Lemma gating_block_ffn : forall Lo B Ly, gating_block Lo B Ly = {| attn := None; ff := Some (gate_ffn Lo B Ly) |}.
Proof. reflexivity. Qed.

Lemma colf_not_S : forall Lo v s s' o t p, ((p < slotS Lo 0)%nat \/ (slotO Lo 0 <= p)%nat) ->
  colf Lo v s o t p = colf Lo v s' o t p.
Proof.
  intros Lo v s s' o t p H. unfold colf, slotS, slotO, slotC in *.
  destruct (Nat.ltb_spec p (dx Lo)); [reflexivity|]. destruct (Nat.ltb_spec p (dx Lo + ntok Lo)); [reflexivity|].
  destruct (Nat.eqb_spec p (dx Lo + ntok Lo)); [reflexivity|].
  destruct (Nat.ltb_spec p (dx Lo + ntok Lo + 1 + nq Lo + 0)); [|reflexivity]. lia.
Qed.

Lemma ind_true : forall a, ind true a = a.
Proof. reflexivity. Qed.
Lemma ind_false : forall a, ind false a = 0.
Proof. reflexivity. Qed.

Lemma gating_column : forall Lo n Ly B v t z, fits Lo n Ly -> length v = n -> bounded Ly B v ->
  (t < ntok Lo)%nat -> agree z (column Lo v zero zero t) ->
  agree (ffn_apply (gate_ffn Lo B Ly) z) (column Lo v (gated Ly B v t) zero t).
Proof.
  intros Lo n Ly B v t z [Hwf [Hn [Hq [Hqn Htok]]]] Hv Hb Ht Hz.
  assert (Hpieces : forall i j w c, In (i, j, (w, c)) (pieces_of Ly) ->
     (length w <= dx Lo)%nat /\ length v = length w /\ (S j < ntok Lo)%nat
     /\ - B <= eval_piece (w, c) v /\ eval_piece (w, c) v <= B).
  { intros i j w c Hin. destruct (in_pieces_of Ly i j w c Hin) as [u [Hu [Hwc Hj]]].
    unfold layer_wf in Hwf. apply andb_true_iff in Hwf as [_ Hwf]. rewrite forallb_forall in Hwf.
    specialize (Hwf u Hu). apply andb_true_iff in Hwf as [_ Hwf]. rewrite forallb_forall in Hwf.
    specialize (Hwf (w, c) Hwc). apply Nat.eqb_eq in Hwf. simpl in Hwf.
    rewrite Forall_forall in Htok. specialize (Htok u Hu). destruct (Hb u (w, c) Hu Hwc).
    repeat split; try lia; assumption. }
  pose proof Hz as Hz'. apply nth_agree in Hz' as [L N]. rewrite column_colf, length_vec_of in L.
  apply agree_nth.
  { rewrite length_ffn_apply, column_colf, length_vec_of. cbn [gate_ffn W2 b2]. rewrite !length_vec_of. lia. }
  intros p Hp. rewrite length_ffn_apply in Hp. cbn [gate_ffn W2 b2] in Hp. rewrite !length_vec_of in Hp.
  rewrite nth_ffn_apply by (cbn [gate_ffn W2 b2]; rewrite ?length_vec_of; lia).
  cbn [gate_ffn W1 b1 W2 b2]. rewrite nth_vec_of_gen by lia.
  rewrite (dot_proper_r _ _ _ (gate_hidden Lo B v t z (pieces_of Ly) Ht Hz Hpieces)).
  rewrite dot_maps, gate_sum. rewrite N. rewrite !column_colf, !nth_vec_of by lia.
  unfold slotS at 1. rewrite sumq_ind_shift.
  assert (Hm : (p < dx Lo + ntok Lo + 1 + 2 * nq Lo)%nat) by (unfold width in Hp; lia).
  destruct (Nat.ltb_spec p (dx Lo + ntok Lo + 1)) as [H1|H1].
  - replace ((dx Lo + ntok Lo + 1 <=? p) && _) with false by (symmetry; apply andb_false_iff; left; apply Nat.leb_gt; lia).
    replace ((slotS Lo 0 <=? p) && _) with false by (symmetry; apply andb_false_iff; left; apply Nat.leb_gt; unfold slotS; lia).
    rewrite (colf_not_S Lo v zero (gated Ly B v t) zero t p) by (left; unfold slotS; lia). unfold ind. ring.
  - destruct (Nat.ltb_spec p (dx Lo + ntok Lo + 1 + nq Lo)) as [H2|H2].
    + remember (p - (dx Lo + ntok Lo + 1))%nat as i eqn:Ei.
      replace p with (slotS Lo i) by (unfold slotS; lia).
      assert (Hi : (i < nq Lo)%nat) by lia.
      rewrite !colf_S by exact Hi. unfold zero.
      replace (dx Lo + ntok Lo + 1 <=? slotS Lo i)%nat with true by (symmetry; apply Nat.leb_le; unfold slotS; lia).
      replace (slotS Lo i - (dx Lo + ntok Lo + 1))%nat with i by (unfold slotS; lia).
      replace (slotS Lo 0 <=? slotS Lo i)%nat with true by (symmetry; apply Nat.leb_le; unfold slotS; lia).
      replace (slotS Lo i <? slotS Lo (length Ly))%nat with (i <? length Ly)%nat
        by (unfold slotS; destruct (Nat.ltb_spec i (length Ly)), (Nat.ltb_spec (dx Lo + ntok Lo + 1 + i) (dx Lo + ntok Lo + 1 + length Ly)); lia).
      unfold gated. destruct (Nat.ltb_spec i (length Ly)); cbn [andb]; rewrite ?ind_true, ?ind_false; [|ring].
      rewrite sumq_ind_shift. rewrite Qred_correct.
      destruct t as [|j]; cbn [Nat.leb andb]; [ring|].
      replace (S j - 1)%nat with j by lia.
      destruct (Nat.ltb_spec j (length (nth i Ly []))); cbn [andb];
        destruct (nth_error (nth i Ly []) j) as [pc|] eqn:E.
      * apply (nth_error_nth _ _ ([], 0)) in E. subst pc. match goal with |- _ == eval_piece ?b v => set (e := eval_piece b v) end. match goal with |- 0 + (eval_piece ?a v + B) + _ == _ => change (eval_piece a v) with e end. ring.
      * apply nth_error_None in E. lia.
      * apply nth_error_Some' in E || (assert (j < length (nth i Ly []))%nat by (apply nth_error_Some; rewrite E; discriminate); lia).
      * ring.
    + replace ((dx Lo + ntok Lo + 1 <=? p) && (p - (dx Lo + ntok Lo + 1) <? length Ly)) with false
        by (symmetry; apply andb_false_iff; right; apply Nat.ltb_ge; lia).
      replace ((slotS Lo 0 <=? p) && (p <? slotS Lo (length Ly))) with false
        by (symmetry; apply andb_false_iff; right; apply Nat.ltb_ge; unfold slotS; lia).
      rewrite (colf_not_S Lo v zero (gated Ly B v t) zero t p) by (right; unfold slotO; lia). unfold ind. ring.
Qed.

Theorem gating_lemma_proof : gating_lemma.
Proof.
  intros Lo n Ly B v Z Hfit Hv Hb HZ.
  rewrite gating_block_ffn. unfold apply_block. cbn [attn ff].
  unfold same_state, stream in *.
  apply (Forall2_map_map _ _ _ _ agree agree _ _ _ _ _ HZ).
  intros z t Hin Hz. apply in_seq in Hin. apply (gating_column Lo n Ly B v t z); auto. lia.
Qed.

(* the general theorems from the lemmas still open (docs/coq.md) *)
Theorem compile_correct_from_open : max_lemma -> compile_correct.
Proof. exact (compile_correct_from_blocks gating_lemma_proof). Qed.

Theorem compile_relu_correct_from_open : max_lemma -> relu_to_maxout_lemma -> compile_relu_correct.
Proof. exact (compile_relu_correct_from_blocks gating_lemma_proof). Qed.
