(* Move.v: Block 3 (X <- (O, 0), S <- 0, O <- 0) proved: move_lemma of Correctness.v. *)
From Coq Require Import QArith Lqa List Bool Arith Lia.
Import ListNotations.
From Symrel Require Import Semantics Compiler Bounds Correctness Linalg.
Open Scope Q_scope.

Definition colf (Lo : layout) (v : vec) (s o : nat -> Q) (t p : nat) : Q :=
  if p <? dx Lo then nth p v 0
  else if p <? slotC Lo then ind (p =? slotP Lo t) 1
  else if p =? slotC Lo then 1
  else if p <? slotO Lo 0 then s (p - slotS Lo 0)%nat
  else o (p - slotO Lo 0)%nat.

Lemma column_colf : forall Lo v s o t, column Lo v s o t = vec_of (width Lo) (colf Lo v s o t).
Proof. reflexivity. Qed.

Lemma dot_row_col : forall m f z g, agree z (vec_of m g) ->
  dot (vec_of m f) z == sumq m (fun p => f p * g p).
Proof.
  intros m f z g H. apply nth_agree in H as [L N]. rewrite length_vec_of in L.
  rewrite dot_sumq by (rewrite length_vec_of; lia). rewrite length_vec_of.
  apply sumq_ext. intros p Hp. rewrite nth_vec_of by exact Hp. rewrite N, nth_vec_of by exact Hp. reflexivity.
Qed.

Lemma sumq_ind_shift : forall n c k (h : nat -> Q),
  sumq n (fun i => ind (Nat.eqb k (c + i)) (h i)) == if (c <=? k) && (k - c <? n) then h (k - c)%nat else 0.
Proof.
  intros n c k h. rewrite (sumq_ext n _ (fun i => ind (Nat.eqb (k - c) i) (if c <=? k then h i else 0))).
  - rewrite sumq_ind. destruct (c <=? k); destruct (k - c <? n)%nat; simpl; reflexivity.
  - intros i _. unfold ind. destruct (Nat.eqb_spec k (c + i)), (Nat.eqb_spec (k - c) i), (Nat.leb_spec c k);
      try reflexivity; try lia.
Qed.

Definition move_ffn (Lo : layout) (n q : nat) : ffn :=
  let cs := changes Lo n q in
  let m := width Lo in
  {| W1 := flat_map (fun sd => [vec_of m (snd sd); vec_of m (fun p => - snd sd p)]) cs;
     b1 := flat_map (fun _ => [0; 0]) cs;
     W2 := vec_of m (fun p => flat_map (fun sd => [ind (p =? fst sd) 1; ind (p =? fst sd) (-1)]) cs);
     b2 := vec_of m (fun _ => 0) |}.

Lemma move_block_ffn : forall Lo n Ly, move_block Lo n Ly = {| attn := None; ff := Some (move_ffn Lo n (length Ly)) |}.
Proof. reflexivity. Qed.

Lemma move_hidden : forall m (cs : list (nat * (nat -> Q))) z,
  agree (map relu (affine (flat_map (fun sd => [vec_of m (snd sd); vec_of m (fun p => - snd sd p)]) cs)
                          (flat_map (fun _ => [0; 0]) cs) z))
        (flat_map (fun sd => [relu (dot (vec_of m (snd sd)) z); relu (- dot (vec_of m (snd sd)) z)]) cs).
Proof.
  intros m cs z. induction cs as [|sd cs IH]; simpl; [constructor|].
  unfold affine, mat_vec in *. simpl. constructor; [|constructor; [|exact IH]].
  - apply relu_proper. ring.
  - apply relu_proper. unfold vec_of. rewrite dot_opp_l. ring.
Qed.

(* the change of slot p made by the move, at a column z *)
Lemma move_entry : forall Lo n q z p, (p < width Lo)%nat ->
  dot (nth p (W2 (move_ffn Lo n q)) []) (map relu (affine (W1 (move_ffn Lo n q)) (b1 (move_ffn Lo n q)) z))
  == lsum (fun sd => ind (p =? fst sd) (dot (vec_of (width Lo) (snd sd)) z)) (changes Lo n q).
Proof.
  intros Lo n q z p Hp. cbn [move_ffn W1 b1 W2]. rewrite nth_vec_of_gen by exact Hp.
  rewrite (dot_proper_r _ _ _ (move_hidden (width Lo) (changes Lo n q) z)).
  rewrite dot_pairs. apply lsum_ext. intros sd _. unfold ind.
  destruct (p =? fst sd); [|ring]. pose proof (relu_pair (dot (vec_of (width Lo) (snd sd)) z)). lra.
Qed.

(* split on every test of naturals in the goal, dropping the impossible cases *)
Ltac nat_cases :=
  repeat match goal with
  | |- context [Nat.eqb ?a ?b] => destruct (Nat.eqb_spec a b); try (exfalso; lia)
  | |- context [Nat.ltb ?a ?b] => destruct (Nat.ltb_spec a b); try (exfalso; lia)
  | |- context [Nat.leb ?a ?b] => destruct (Nat.leb_spec a b); try (exfalso; lia)
  end; subst; cbv beta iota delta [andb orb negb]; try ring.

Lemma dz_single : forall m k a z g, (k < m)%nat -> agree z (vec_of m g) ->
  dot (vec_of m (fun p => ind (p =? k) a)) z == a * g k.
Proof.
  intros m k a z g Hk H. rewrite (dot_row_col m _ z g H).
  rewrite (sumq_ext m _ (fun p => ind (k =? p) (a * g p))).
  - rewrite sumq_ind. apply Nat.ltb_lt in Hk. rewrite Hk. reflexivity.
  - intros p _. unfold ind. rewrite Nat.eqb_sym. destruct (k =? p); ring.
Qed.

Lemma dz_x : forall Lo q r z g, agree z (vec_of (width Lo) g) -> (r < dx Lo)%nat ->
  (q <= nq Lo)%nat ->
  dot (vec_of (width Lo) (fun p => if p =? slotX Lo r then -1 else ind ((r <? q) && (p =? slotO Lo r)) 1)) z
  == - g r + (if r <? q then g (slotO Lo r) else 0).
Proof.
  intros Lo q r z g H Hr Hq. rewrite (dot_row_col _ _ z g H).
  rewrite (sumq_ext _ _ (fun p => ind (r =? p) (- g p) + ind (slotO Lo r =? p) (if r <? q then g p else 0))).
  - rewrite sumq_plus, !sumq_ind. unfold width, slotO in *.
    destruct (Nat.ltb_spec r (dx Lo + ntok Lo + 1 + 2 * nq Lo)); [|lia].
    destruct (Nat.ltb_spec r q).
    + destruct (Nat.ltb_spec (dx Lo + ntok Lo + 1 + nq Lo + r) (dx Lo + ntok Lo + 1 + 2 * nq Lo)); [|lia].
      ring.
    + destruct (_ <? _)%nat; ring.
  - intros p _. unfold ind, slotX, slotO. nat_cases.
Qed.

Lemma nth_map_seq : forall (o : nat -> Q) q p, nth p (map o (seq 0 q)) 0 = if p <? q then o p else 0.
Proof.
  intros o q p. destruct (Nat.ltb_spec p q).
  - rewrite nth_indep with (d' := o O) by (rewrite map_length, seq_length; exact H).
    rewrite map_nth, seq_nth by exact H. reflexivity.
  - apply nth_overflow. rewrite map_length, seq_length. exact H.
Qed.

Lemma colf_X : forall Lo v s o t p, (p < dx Lo)%nat -> colf Lo v s o t p = nth p v 0.
Proof. intros. unfold colf. destruct (Nat.ltb_spec p (dx Lo)); [reflexivity|lia]. Qed.

Lemma colf_S : forall Lo v s o t i, (i < nq Lo)%nat -> colf Lo v s o t (slotS Lo i) = s i.
Proof.
  intros. unfold colf, slotS, slotC, slotO.
  destruct (Nat.ltb_spec (dx Lo + ntok Lo + 1 + i) (dx Lo)); [lia|].
  destruct (Nat.ltb_spec (dx Lo + ntok Lo + 1 + i) (dx Lo + ntok Lo)); [lia|].
  destruct (Nat.eqb_spec (dx Lo + ntok Lo + 1 + i) (dx Lo + ntok Lo)); [lia|].
  destruct (Nat.ltb_spec (dx Lo + ntok Lo + 1 + i) (dx Lo + ntok Lo + 1 + nq Lo + 0)); [|lia].
  f_equal. lia.
Qed.

Lemma colf_O : forall Lo v s o t i, (i < nq Lo)%nat -> colf Lo v s o t (slotO Lo i) = o i.
Proof.
  intros. unfold colf, slotS, slotC, slotO.
  destruct (Nat.ltb_spec (dx Lo + ntok Lo + 1 + nq Lo + i) (dx Lo)); [lia|].
  destruct (Nat.ltb_spec (dx Lo + ntok Lo + 1 + nq Lo + i) (dx Lo + ntok Lo)); [lia|].
  destruct (Nat.eqb_spec (dx Lo + ntok Lo + 1 + nq Lo + i) (dx Lo + ntok Lo)); [lia|].
  destruct (Nat.ltb_spec (dx Lo + ntok Lo + 1 + nq Lo + i) (dx Lo + ntok Lo + 1 + nq Lo + 0)); [lia|].
  f_equal. lia.
Qed.

Lemma colf_PC : forall Lo v s o v' s' o' t p, (dx Lo <= p)%nat -> (p < dx Lo + ntok Lo + 1)%nat ->
  colf Lo v s o t p = colf Lo v' s' o' t p.
Proof.
  intros. unfold colf, slotC. destruct (Nat.ltb_spec p (dx Lo)); [lia|].
  destruct (Nat.ltb_spec p (dx Lo + ntok Lo)); [reflexivity|].
  destruct (Nat.eqb_spec p (dx Lo + ntok Lo)); [reflexivity|lia].
Qed.

Lemma move_column : forall Lo n q v s o t z,
  (n <= dx Lo)%nat -> (q <= dx Lo)%nat -> (q <= nq Lo)%nat -> length v = n ->
  (forall i, (q <= i)%nat -> s i == 0) -> (forall i, (q <= i)%nat -> o i == 0) ->
  agree z (column Lo v s o t) ->
  agree (ffn_apply (move_ffn Lo n q) z) (column Lo (map o (seq 0 q)) zero zero t).
Proof.
  intros Lo n q v s o t z Hn Hq Hqn Hv Hs Ho H.
  rewrite column_colf in *.
  pose proof H as H'. apply nth_agree in H' as [L N]. rewrite length_vec_of in L.
  apply agree_nth.
  { rewrite length_ffn_apply, length_vec_of. cbn [move_ffn W2 b2]. rewrite !length_vec_of. lia. }
  intros p Hp. rewrite length_ffn_apply in Hp. cbn [move_ffn W2 b2] in Hp. rewrite !length_vec_of in Hp.
  rewrite nth_ffn_apply by (cbn [move_ffn W2 b2]; rewrite ?length_vec_of; lia).
  rewrite move_entry by lia.
  rewrite N. cbn [move_ffn b2]. rewrite !nth_vec_of by lia.
  unfold changes. rewrite lsum_app, lsum_map, lsum_flat_map.
  rewrite (lsum_seq _ (Nat.max n q) 0). rewrite (lsum_seq _ q 0). cbn [fst snd].
  rewrite (sumq_ext (Nat.max n q) _
    (fun r => ind (p =? r) (- colf Lo v s o t r + (if r <? q then colf Lo v s o t (slotO Lo r) else 0)))).
  2:{ intros r Hr. unfold ind. cbn [Nat.add]. change (slotX Lo r) with r. destruct (p =? r); [|reflexivity].
      apply dz_x; [exact H|lia|lia]. }
  rewrite (sumq_ext q _
    (fun i => ind (p =? dx Lo + ntok Lo + 1 + i) (- colf Lo v s o t (slotS Lo i))
              + ind (p =? dx Lo + ntok Lo + 1 + nq Lo + i) (- colf Lo v s o t (slotO Lo i)))).
  2:{ intros i Hi. cbn [Nat.add lsum fold_right]. unfold lsum. cbn [fold_right fst snd].
      pose proof (dz_single (width Lo) (slotS Lo i) (-1) z (colf Lo v s o t)) as D1.
      pose proof (dz_single (width Lo) (slotO Lo i) (-1) z (colf Lo v s o t)) as D2.
      unfold width, slotS, slotO, ind in *. specialize (D1 ltac:(lia) H). specialize (D2 ltac:(lia) H).
      nat_cases; lra. }
  rewrite sumq_plus, sumq_ind, !sumq_ind_shift.
  assert (Hw : (p < dx Lo + ntok Lo + 1 + 2 * nq Lo)%nat) by (unfold width in Hp; lia).
  destruct (Nat.ltb_spec p (dx Lo)) as [HX|HX].
  - (* an input slot X_p *)
    rewrite (colf_X Lo v s o t p HX), (colf_X Lo (map o (seq 0 q)) zero zero t p HX), nth_map_seq.
    replace ((dx Lo + ntok Lo + 1 <=? p) && _) with false by (symmetry; apply andb_false_iff; left; apply Nat.leb_gt; lia).
    replace ((dx Lo + ntok Lo + 1 + nq Lo <=? p) && _) with false by (symmetry; apply andb_false_iff; left; apply Nat.leb_gt; lia).
    destruct (Nat.ltb_spec p (Nat.max n q)); destruct (Nat.ltb_spec p q).
    + rewrite colf_O by lia. ring.
    + ring.
    + lia.
    + rewrite nth_overflow by lia. ring.
  - destruct (Nat.ltb_spec p (Nat.max n q)); [lia|].
    destruct (Nat.ltb_spec p (dx Lo + ntok Lo + 1)) as [HP|HP].
    + (* P and C *)
      replace ((dx Lo + ntok Lo + 1 <=? p) && _) with false by (symmetry; apply andb_false_iff; left; apply Nat.leb_gt; lia).
      replace ((dx Lo + ntok Lo + 1 + nq Lo <=? p) && _) with false by (symmetry; apply andb_false_iff; left; apply Nat.leb_gt; lia).
      rewrite (colf_PC Lo v s o (map o (seq 0 q)) zero zero t p) by lia. ring.
    + destruct (Nat.ltb_spec p (dx Lo + ntok Lo + 1 + nq Lo)) as [HS|HS].
      * (* a scratch slot S_i, i = p - (dx + T + 1) *)
        replace ((dx Lo + ntok Lo + 1 + nq Lo <=? p) && _) with false by (symmetry; apply andb_false_iff; left; apply Nat.leb_gt; lia).
        replace (p - (dx Lo + ntok Lo + 1))%nat with (p - (dx Lo + ntok Lo + 1))%nat by reflexivity.
        remember (p - (dx Lo + ntok Lo + 1))%nat as i eqn:Ei.
        replace p with (slotS Lo i) by (unfold slotS; lia).
        rewrite (colf_S Lo v s o t i), (colf_S Lo (map o (seq 0 q)) zero zero t i) by lia.
        replace (dx Lo + ntok Lo + 1 <=? slotS Lo i)%nat with true by (symmetry; apply Nat.leb_le; unfold slotS; lia).
        replace (slotS Lo i - (dx Lo + ntok Lo + 1))%nat with i by (unfold slotS; lia).
        destruct (Nat.ltb_spec i q); cbn [andb]; unfold zero.
        -- ring.
        -- pose proof (Hs i ltac:(lia)). lra.
      * (* an output slot O_i *)
        replace ((dx Lo + ntok Lo + 1 <=? p) && (p - (dx Lo + ntok Lo + 1) <? q)) with false
          by (symmetry; apply andb_false_iff; right; apply Nat.ltb_ge; lia).
        remember (p - (dx Lo + ntok Lo + 1 + nq Lo))%nat as i eqn:Ei.
        replace p with (slotO Lo i) by (unfold slotO; lia).
        assert (Hi : (i < nq Lo)%nat) by (unfold width in Hp; lia).
        rewrite (colf_O Lo v s o t i), (colf_O Lo (map o (seq 0 q)) zero zero t i) by exact Hi.
        replace (dx Lo + ntok Lo + 1 + nq Lo <=? slotO Lo i)%nat with true by (symmetry; apply Nat.leb_le; unfold slotO; lia).
        replace (slotO Lo i - (dx Lo + ntok Lo + 1 + nq Lo))%nat with i by (unfold slotO; lia).
        destruct (Nat.ltb_spec i q); cbn [andb]; unfold zero.
        -- ring.
        -- pose proof (Ho i ltac:(lia)). lra.
Qed.

Lemma Forall2_map_map : forall A B C D (R : A -> B -> Prop) (R' : C -> D -> Prop) (F : A -> C) (f : nat -> B) (g : nat -> D) Z l,
  Forall2 R Z (map f l) -> (forall z a, In a l -> R z (f a) -> R' (F z) (g a)) -> Forall2 R' (map F Z) (map g l).
Proof.
  intros A B C D R R' F f g Z l. revert Z. induction l as [|a l IH]; intros Z H HF; inversion H; subst; simpl;
    constructor.
  - apply HF; [left; reflexivity|assumption].
  - apply IH; [assumption|]. intros z b Hb. apply HF. right. exact Hb.
Qed.

(* Block 3, for every layer that fits the layout *)
Theorem move_lemma_proof : move_lemma.
Proof.
  intros Lo n Ly v s o Z [_ [Hn [Hq [Hqn _]]]] Hv Hs Ho HZ.
  rewrite move_block_ffn. unfold apply_block. cbn [attn ff].
  unfold same_state, stream in *.
  apply (Forall2_map_map _ _ _ _ agree agree _ _ _ _ _ HZ).
  intros z t _ Hz. apply (move_column Lo n (length Ly) v (s t) o t z); auto.
Qed.
