(* Blocks.v: facts about the blocks, proved. Block 2's core: a hardmax head whose value is
   its score returns the maximum score, whatever the ties (THEORY.md section 1). *)
From Coq Require Import QArith Lqa List Bool Arith Lia.
Import ListNotations.
From Symrel Require Import Semantics Compiler Bounds Correctness.
Open Scope Q_scope.

Lemma qmax_or : forall a b, qmax a b = a \/ qmax a b = b.
Proof. intros a b. unfold qmax. destruct (Qle_bool a b); [right|left]; reflexivity. Qed.

Lemma fold_qmax_in : forall r a, In (fold_left qmax r a) (a :: r).
Proof.
  induction r as [|b r IH]; intros a; simpl; [left; reflexivity|].
  destruct (IH (qmax a b)) as [E|E].
  - destruct (qmax_or a b) as [Hq|Hq]; rewrite Hq in *; [left; exact E|right; left; exact E].
  - right; right; exact E.
Qed.

(* the maximum is one of the scores (Leibniz: qmax returns one of its arguments) *)
Lemma max_list_in : forall l, l <> [] -> In (max_list l) l.
Proof. intros [|a r] H; [congruence|]. apply fold_qmax_in. Qed.

(* sum_s (if s == top then c else 0) * s_s = |{s : s == top}| * c * top *)
Lemma dot_indicator : forall (l : list Q) top c,
  dot (map (fun v => if Qeq_bool v top then c else 0) l) l
  == inject_Z (Z.of_nat (length (filter (fun v => Qeq_bool v top) l))) * c * top.
Proof.
  induction l as [|a l IH]; intros top c; simpl; [reflexivity|].
  rewrite IH. destruct (Qeq_bool a top) eqn:E.
  - apply Qeq_bool_iff in E. simpl length. rewrite Nat2Z.inj_succ. unfold Z.succ.
    rewrite inject_Z_plus. rewrite E. simpl. ring.
  - ring.
Qed.

(* a hardmax head with value = score returns the maximal score (ties averaged) *)
Theorem hardmax_value_is_score : forall s, s <> [] -> dot (hardmax s) s == max_list s.
Proof.
  intros s Hs. unfold hardmax. rewrite dot_indicator.
  set (n := length (filter (fun v => Qeq_bool v (max_list s)) s)).
  assert (Hn : (0 < n)%nat).
  { unfold n. destruct (filter (fun v => Qeq_bool v (max_list s)) s) eqn:F; simpl; [|lia].
    exfalso. assert (In (max_list s) (filter (fun v => Qeq_bool v (max_list s)) s)).
    { apply filter_In. split; [apply max_list_in; exact Hs|apply Qeq_bool_iff; reflexivity]. }
    rewrite F in H. contradiction. }
  assert (Hz : ~ inject_Z (Z.of_nat n) == 0).
  { rewrite inject_Z_injective_0 || idtac. intro H. unfold Qeq in H. simpl in H. lia. }
  field. exact Hz.
Qed.
