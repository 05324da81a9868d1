(* Correctness.v: the theorems proved once for every net (Paper A, Thms 3.1 and 3.2 for symrel's
   construction, and Cor 3.3 for ReLU nets), stated in Semantics.v's terms and Compiler.v's
   compile / certify. *)
From Coq Require Import QArith List.
Import ListNotations.
From Symrel Require Import Semantics Compiler Bounds.
Open Scope Q_scope.

(* For every maxout net N, box D and gating bounds Bs that pass the check (well-formed net,
   |l_ij| <= B_l on layer l's input box), the compiled Transformer equals N on D. *)
Definition compile_correct : Prop :=
  forall N D Bs, certify N D Bs = true ->
  forall x, in_box D x -> agree (eval_transformer (compile N Bs) x) (eval_maxout N x).

(* ReLU nets through their maxout form. *)
Definition compile_relu_correct : Prop :=
  forall R D Bs, certify_relu R D Bs = true ->
  forall x, in_box D x -> agree (eval_transformer (compile (relu_to_maxout R) Bs) x) (eval_relu R x).

(* ---- The lemmas the general theorem is assembled from (THEORY.md section 1: "each block is
   a lemma of its own"). Stated here so that coqc checks the statements; which of them are
   proved is said in docs/coq.md and by Print Assumptions on the proofs that exist. *)

(* token t's column in the residual stream of a layer's input v: X = v (zero padded),
   P = e_t, C = 1, S = s, O = o *)
Definition column (Lo : layout) (v : vec) (s o : nat -> Q) (t : nat) : vec :=
  vec_of (width Lo) (fun p =>
    if p <? dx Lo then nth p v 0
    else if p <? slotC Lo then ind (p =? slotP Lo t) 1
    else if p =? slotC Lo then 1
    else if p <? slotO Lo 0 then s (p - slotS Lo 0)%nat
    else o (p - slotO Lo 0)%nat).

Definition stream (Lo : layout) (v : vec) (s : nat -> nat -> Q) (o : nat -> Q) : state :=
  map (fun t => column Lo v (s t) o t) (seq 0 (ntok Lo)).

Definition zero (_ : nat) : Q := 0.

(* two states are the same when every token's column agrees, entry by entry, as rationals *)
Definition same_state (Z Z' : state) : Prop := Forall2 agree Z Z'.

(* the layer reads n <= dx inputs and has q <= dx, q <= nq units, each of rank < T *)
Definition fits (Lo : layout) (n : nat) (Ly : mlayer) : Prop :=
  layer_wf n Ly = true /\ (n <= dx Lo)%nat /\ (length Ly <= dx Lo)%nat /\ (length Ly <= nq Lo)%nat
  /\ Forall (fun u => (length u < ntok Lo)%nat) Ly.

Definition bounded (Ly : mlayer) (B : Q) (v : vec) : Prop :=
  forall u p, In u Ly -> In p u -> - B <= eval_piece p v /\ eval_piece p v <= B.

(* the scratch slots after Block 1: S_i = l_ij(v) on token j+1, -B on every other token *)
Definition gated (Ly : mlayer) (B : Q) (v : vec) (t i : nat) : Q :=
  if i <? length Ly then
    match t with
    | O => - B
    | S j => match nth_error (nth i Ly []) j with Some p => eval_piece p v | None => - B end
    end
  else 0.

Definition unit_values (Ly : mlayer) (v : vec) (i : nat) : Q :=
  if i <? length Ly then eval_unit (nth i Ly []) v else 0.

(* Block 1: each piece gated onto its own token *)
Definition gating_lemma : Prop := forall Lo n Ly B v Z,
  fits Lo n Ly -> length v = n -> bounded Ly B v ->
  same_state Z (stream Lo v (fun _ => zero) zero) ->
  same_state (apply_block Z (gating_block Lo B Ly)) (stream Lo v (gated Ly B v) zero).

(* Block 2: the hardmax head of unit i writes max_t S_i(t) = max(-B, l_i1, ..) = h_i(v) *)
Definition max_lemma : Prop := forall Lo n Ly B v Z,
  fits Lo n Ly -> length v = n -> bounded Ly B v ->
  same_state Z (stream Lo v (gated Ly B v) zero) ->
  same_state (apply_block Z (max_block Lo Ly)) (stream Lo v (gated Ly B v) (unit_values Ly v)).

(* Block 3: X <- (O, 0), S <- 0, O <- 0 *)
Definition move_lemma : Prop := forall Lo n Ly v s o Z,
  fits Lo n Ly -> length v = n ->
  (forall t i, (length Ly <= i)%nat -> s t i == 0) -> (forall i, (length Ly <= i)%nat -> o i == 0) ->
  same_state Z (stream Lo v s o) ->
  same_state (apply_block Z (move_block Lo n Ly)) (stream Lo (map o (seq 0 (length Ly))) (fun _ => zero) zero).

(* the embedding is the stream of x *)
Definition embed_lemma : Prop := forall N Bs x,
  length x = mx_input N ->
  same_state (embed (compile N Bs) x) (stream (layout_of N) x (fun _ => zero) zero).

(* the read-out at token 0 is the net's read-out of the X slots *)
Definition readout_lemma : Prop := forall N Bs h Z,
  length h = last_width N -> readout_ok (last_width N) (mx_readout N) = true ->
  same_state Z (stream (layout_of N) h (fun _ => zero) zero) ->
  agree (affine (t_out_W (compile N Bs)) (t_out_b (compile N Bs)) (nth (t_out_token (compile N Bs)) Z []))
        (eval_readout (mx_readout N) h).

(* ReLU nets: the maxout form computes the same function *)
Definition relu_to_maxout_lemma : Prop := forall R x,
  relu_wf R = true -> length x = rn_input R -> agree (eval_maxout (relu_to_maxout R) x) (eval_relu R x).
