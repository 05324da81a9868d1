From Coq Require Import QArith Lqa List Bool Arith Lia.
Import ListNotations.
From Symrel Require Import Semantics Compiler Bounds Correctness.
Open Scope Q_scope.

(* ---- sums and the entries of lists *)
Fixpoint sumq (n : nat) (g : nat -> Q) : Q :=
  match n with O => 0 | S n' => g O + sumq n' (fun p => g (S p)) end.

Lemma sumq_ext : forall n g h, (forall p, (p < n)%nat -> g p == h p) -> sumq n g == sumq n h.
Proof.
  induction n as [|n IH]; intros g h H; simpl; [reflexivity|].
  rewrite (H O) by lia. rewrite (IH (fun p => g (S p)) (fun p => h (S p))); [reflexivity|].
  intros p Hp. apply H. lia.
Qed.

Lemma sumq_plus : forall n g h, sumq n (fun p => g p + h p) == sumq n g + sumq n h.
Proof.
  induction n as [|n IH]; intros g h; simpl; [reflexivity|].
  rewrite IH. ring.
Qed.

Lemma sumq_zero : forall n g, (forall p, (p < n)%nat -> g p == 0) -> sumq n g == 0.
Proof.
  intros n g H. rewrite (sumq_ext n g (fun _ => 0)) by exact H.
  clear. induction n; simpl; [reflexivity|]. rewrite IHn. reflexivity.
Qed.

Lemma sumq_single : forall n g k, (k < n)%nat -> (forall p, (p < n)%nat -> p <> k -> g p == 0) ->
  sumq n g == g k.
Proof.
  induction n as [|n IH]; intros g k Hk H; [lia|]. simpl. destruct k as [|k].
  - rewrite sumq_zero; [ring|]. intros p Hp. apply H; lia.
  - rewrite (H O) by lia. rewrite (IH (fun p => g (S p)) k) by (lia || (intros p Hp Hpk; apply H; lia)).
    ring.
Qed.

Definition nthq (v : vec) (p : nat) : Q := nth p v 0.

Lemma dot_sumq : forall a b, (length a <= length b)%nat ->
  dot a b == sumq (length a) (fun p => nthq a p * nthq b p).
Proof.
  induction a as [|x a IH]; intros b Hl; simpl; [reflexivity|].
  destruct b as [|y b]; simpl in Hl; [lia|]. simpl. rewrite IH by lia. reflexivity.
Qed.

Lemma nth_vec_of : forall m (f : nat -> Q) p, (p < m)%nat -> nthq (vec_of m f) p = f p.
Proof.
  intros m f p Hp. unfold nthq, vec_of.
  rewrite nth_indep with (d' := f O) by (rewrite map_length, seq_length; exact Hp).
  rewrite map_nth, seq_nth by exact Hp. reflexivity.
Qed.

Lemma length_vec_of : forall A m (f : nat -> A), length (vec_of m f) = m.
Proof. intros. unfold vec_of. rewrite map_length, seq_length. reflexivity. Qed.

(* a vector agrees with vec_of m g when its entries do *)
Lemma agree_nth : forall a b, length a = length b -> (forall p, (p < length a)%nat -> nthq a p == nthq b p) ->
  agree a b.
Proof.
  induction a as [|x a IH]; intros [|y b] Hl H; simpl in Hl; try discriminate; constructor.
  - exact (H O ltac:(simpl; lia)).
  - apply IH; [lia|]. intros p Hp. exact (H (S p) ltac:(simpl; lia)).
Qed.

Lemma nth_agree : forall a b, agree a b -> length a = length b /\ forall p, nthq a p == nthq b p.
Proof.
  intros a b H. induction H as [|x y a b Hxy H [IHl IHn]]; split; simpl; try lia.
  - intros [|p]; reflexivity.
  - intros [|p]; [exact Hxy|exact (IHn p)].
Qed.

Lemma agree_trans : forall a b c, agree a b -> agree b c -> agree a c.
Proof.
  intros a b c H1 H2. apply nth_agree in H1 as [L1 N1]. apply nth_agree in H2 as [L2 N2].
  apply agree_nth; [lia|]. intros p _. rewrite N1. apply N2.
Qed.

Lemma agree_sym : forall a b, agree a b -> agree b a.
Proof.
  intros a b H. apply nth_agree in H as [L N]. apply agree_nth; [lia|]. intros p _. symmetry. apply N.
Qed.

Lemma agree_refl : forall a, agree a a.
Proof. intros a. apply agree_nth; [reflexivity|]. intros; reflexivity. Qed.

Lemma dot_proper_r : forall a b b', agree b b' -> dot a b == dot a b'.
Proof.
  induction a as [|x a IH]; intros b b' H; simpl; [reflexivity|].
  destruct H as [|y y' b b' Hy H]; simpl; [reflexivity|]. rewrite Hy, (IH b b' H). reflexivity.
Qed.

Lemma length_vadd : forall a b, length (vadd a b) = Nat.min (length a) (length b).
Proof. induction a as [|x a IH]; intros [|y b]; simpl; auto. Qed.

Lemma nth_vadd : forall a b p, (p < length a)%nat -> (p < length b)%nat ->
  nthq (vadd a b) p = nthq a p + nthq b p.
Proof.
  induction a as [|x a IH]; intros [|y b] p Ha Hb; simpl in Ha, Hb; try lia.
  destruct p as [|p]; [reflexivity|]. unfold nthq in *. simpl. apply IH; lia.
Qed.

Lemma nth_map_q : forall (f : vec -> Q) (M : mat) p, (p < length M)%nat -> nthq (map f M) p = f (nth p M []).
Proof.
  intros f M p Hp. unfold nthq. rewrite nth_indep with (d' := f []) by (rewrite map_length; exact Hp).
  apply map_nth.
Qed.

Lemma relu_proper : forall a b, a == b -> relu a == relu b.
Proof.
  intros a b H. unfold relu. destruct (Qle_bool a 0) eqn:Ea, (Qle_bool b 0) eqn:Eb; try reflexivity.
  - apply Qle_bool_iff in Ea. assert (b <= 0) by (rewrite <- H; exact Ea).
    apply Qle_bool_iff in H0. congruence.
  - apply Qle_bool_iff in Eb. assert (a <= 0) by (rewrite H; exact Eb).
    apply Qle_bool_iff in H0. congruence.
  - exact H.
Qed.

Lemma relu_pos : forall a, 0 <= a -> relu a == a.
Proof.
  intros a H. unfold relu. destruct (Qle_bool a 0) eqn:E; [|reflexivity].
  apply Qle_bool_iff in E. lra.
Qed.

Lemma relu_neg : forall a, a <= 0 -> relu a == 0.
Proof.
  intros a H. unfold relu. destruct (Qle_bool a 0) eqn:E; [reflexivity|].
  apply Qle_bool_iff in H. congruence.
Qed.

Lemma relu_pair : forall a, relu a - relu (- a) == a.
Proof.
  intros a. destruct (Qlt_le_dec a 0).
  - rewrite (relu_neg a) by lra. rewrite (relu_pos (- a)) by lra. ring.
  - rewrite (relu_pos a) by lra. rewrite (relu_neg (- a)) by lra. ring.
Qed.

Lemma nth_vec_of_gen : forall A m (f : nat -> A) p d, (p < m)%nat -> nth p (vec_of m f) d = f p.
Proof.
  intros A m f p d Hp. unfold vec_of.
  rewrite nth_indep with (d' := f O) by (rewrite map_length, seq_length; exact Hp).
  rewrite map_nth, seq_nth by exact Hp. reflexivity.
Qed.

Lemma length_ffn_apply : forall f z,
  length (ffn_apply f z) = Nat.min (Nat.min (length z) (length (W2 f))) (length (b2 f)).
Proof. intros f z. unfold ffn_apply, mat_vec. rewrite !length_vadd, map_length. reflexivity. Qed.

Lemma nth_ffn_apply : forall f z p, (p < length z)%nat -> (p < length (W2 f))%nat -> (p < length (b2 f))%nat ->
  nthq (ffn_apply f z) p == nthq z p + dot (nth p (W2 f) []) (map relu (affine (W1 f) (b1 f) z)) + nthq (b2 f) p.
Proof.
  intros f z p H1 H2 H3. unfold ffn_apply.
  rewrite nth_vadd; [| rewrite length_vadd; unfold mat_vec; rewrite map_length; lia | exact H3].
  rewrite nth_vadd; [| exact H1 | unfold mat_vec; rewrite map_length; exact H2].
  unfold mat_vec. rewrite nth_map_q by exact H2. reflexivity.
Qed.

(* sums over a list *)
Definition lsum {A} (F : A -> Q) (l : list A) : Q := fold_right (fun a acc => F a + acc) 0 l.

Lemma lsum_app : forall A (F : A -> Q) l1 l2, lsum F (l1 ++ l2) == lsum F l1 + lsum F l2.
Proof. induction l1 as [|a l1 IH]; intros l2; simpl; [ring|]. unfold lsum in *. simpl. rewrite IH. ring. Qed.

Lemma lsum_ext : forall A (F G : A -> Q) l, (forall a, In a l -> F a == G a) -> lsum F l == lsum G l.
Proof.
  induction l as [|a l IH]; intros H; simpl; [reflexivity|]. unfold lsum in *. simpl.
  rewrite (H a) by (left; reflexivity). rewrite IH; [reflexivity|]. intros b Hb. apply H. right. exact Hb.
Qed.

Lemma lsum_seq : forall (F : nat -> Q) k s, lsum F (seq s k) == sumq k (fun i => F (s + i)%nat).
Proof.
  induction k as [|k IH]; intros s; simpl; [reflexivity|]. unfold lsum in *. simpl.
  rewrite IH. rewrite Nat.add_0_r.
  rewrite (sumq_ext k (fun i => F (S s + i)%nat) (fun p => F (s + S p)%nat)); [reflexivity|].
  intros p _. replace (S s + p)%nat with (s + S p)%nat by lia. reflexivity.
Qed.

Lemma lsum_map : forall A B (F : B -> Q) (f : A -> B) l, lsum F (map f l) = lsum (fun a => F (f a)) l.
Proof. induction l as [|a l IH]; simpl; [reflexivity|]. unfold lsum in *. simpl. rewrite IH. reflexivity. Qed.

Lemma lsum_flat_map : forall A B (F : B -> Q) (f : A -> list B) l,
  lsum F (flat_map f l) == lsum (fun a => lsum F (f a)) l.
Proof.
  induction l as [|a l IH]; simpl; [reflexivity|]. rewrite lsum_app. unfold lsum at 3. simpl.
  fold (lsum (fun a => lsum F (f a)) l). rewrite IH. reflexivity.
Qed.

Lemma dot_pairs : forall A (a b x y : A -> Q) l,
  dot (flat_map (fun c => [a c; b c]) l) (flat_map (fun c => [x c; y c]) l)
  == lsum (fun c => a c * x c + b c * y c) l.
Proof.
  induction l as [|c l IH]; simpl; [reflexivity|]. unfold lsum in *. simpl. rewrite IH. ring.
Qed.

Lemma dot_opp_l : forall (d : nat -> Q) l z, dot (map (fun p => - d p) l) z == - dot (map d l) z.
Proof.
  induction l as [|p l IH]; intros [|y z]; simpl; try ring. rewrite IH. ring.
Qed.

Lemma sumq_ind : forall n k (h : nat -> Q),
  sumq n (fun p => ind (Nat.eqb k p) (h p)) == if (k <? n)%nat then h k else 0.
Proof.
  intros n k h. destruct (Nat.ltb_spec k n).
  - rewrite (sumq_single n _ k H). { unfold ind. rewrite Nat.eqb_refl. reflexivity. }
    intros p _ Hp. unfold ind. destruct (Nat.eqb_spec k p); [lia|reflexivity].
  - apply sumq_zero. intros p Hp. unfold ind. destruct (Nat.eqb_spec k p); [lia|reflexivity].
Qed.
