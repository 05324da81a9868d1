(* Semantics.v: what a symrel claim means, in Coq. Definitions only; nothing is assumed.
   Read it beside THEORY.md, section 0 (conventions): numbers are exact rationals (Q),
   vectors are lists, a matrix is the list of its rows, a Transformer state is the list
   of its token columns. Every function below is the plain formula of section 0. *)
From Coq Require Import QArith List.
Import ListNotations.
Open Scope Q_scope.

Definition vec := list Q.
Definition mat := list vec.                     (* the list of the rows *)

Fixpoint dot (a b : vec) : Q :=
  match a, b with
  | x :: a', y :: b' => x * y + dot a' b'
  | _, _ => 0
  end.

Fixpoint vadd (a b : vec) : vec :=
  match a, b with
  | x :: a', y :: b' => (x + y) :: vadd a' b'
  | _, _ => []
  end.

Definition mat_vec (M : mat) (v : vec) : vec := map (fun r => dot r v) M.

(* the affine map v -> W v + b *)
Definition affine (W : mat) (b : vec) (v : vec) : vec := vadd (mat_vec W v) b.

Definition relu (z : Q) : Q := if Qle_bool z 0 then 0 else z.

Definition qmax (a b : Q) : Q := if Qle_bool a b then b else a.

(* the largest element of a nonempty list (0 for the empty list, which never occurs) *)
Definition max_list (l : list Q) : Q :=
  match l with [] => 0 | a :: r => fold_left qmax r a end.

(* ---- Maxout nets: a piece is l(v) = w.v + c, a unit is max_j l_j, a layer is q units
   reading the same input, a net composes layers, then an affine read-out (or none). *)
Definition piece := (vec * Q)%type.
Definition munit := list piece.
Definition mlayer := list munit.
Record MaxoutNet := { mx_input : nat; mx_layers : list mlayer; mx_readout : option (mat * vec) }.

Definition eval_piece (p : piece) (v : vec) : Q := dot (fst p) v + snd p.
Definition eval_unit (u : munit) (v : vec) : Q := max_list (map (fun p => eval_piece p v) u).
Definition eval_layer (L : mlayer) (v : vec) : vec := map (fun u => eval_unit u v) L.

Definition eval_readout (r : option (mat * vec)) (h : vec) : vec :=
  match r with None => h | Some (W, b) => affine W b h end.

Definition eval_maxout (N : MaxoutNet) (x : vec) : vec :=
  eval_readout (mx_readout N) (fold_left (fun v L => eval_layer L v) (mx_layers N) x).

(* ---- ReLU nets: dense layers v -> act(W v + b), act = ReLU (true) or none (false). *)
Record dense := { dn_W : mat; dn_b : vec; dn_relu : bool }.
Record ReluNet := { rn_input : nat; rn_layers : list dense }.

Definition eval_dense (l : dense) (v : vec) : vec :=
  let z := affine (dn_W l) (dn_b l) v in if dn_relu l then map relu z else z.

Definition eval_relu (R : ReluNet) (x : vec) : vec :=
  fold_left (fun v l => eval_dense l v) (rn_layers R) x.

(* ---- Boxes: [l_1,u_1] x ... x [l_d,u_d]. *)
Definition Box := list (Q * Q).
Definition in_box (D : Box) (x : vec) : Prop :=
  Forall2 (fun lu xi => fst lu <= xi /\ xi <= snd lu) D x.

(* ---- The hardmax Transformer (tokens as columns, residual everywhere, no layer norm). *)
Record head := { WQ : mat; WK : mat; WV : mat; WO : mat }.
Record ffn := { W1 : mat; b1 : vec; W2 : mat; b2 : vec }.
Record block := { attn : option (list head); ff : option ffn }.
Record Transformer := {
  t_rows : list nat;        (* input i goes into slot t_rows[i] of every token *)
  t_offsets : list vec;     (* token t starts as t_offsets[t] (the token-wise shift) *)
  t_blocks : list block;
  t_out_token : nat;        (* the read-out reads this token's column: W z + b *)
  t_out_W : mat;
  t_out_b : vec }.
Definition state := list vec.                  (* the token columns z_0 .. z_(T-1) *)

(* hardmax(s): weight 1/|M| on each index of the argmax set M, 0 elsewhere *)
Definition hardmax (s : list Q) : list Q :=
  let top := max_list s in
  let n := length (filter (fun v => Qeq_bool v top) s) in
  map (fun v => if Qeq_bool v top then 1 / inject_Z (Z.of_nat n) else 0) s.

(* sum_s w_s v_s over a nonempty list of vectors *)
Fixpoint lin_comb (w : list Q) (vs : list vec) : vec :=
  match w, vs with
  | [a], [v] => map (Qmult a) v
  | a :: w', v :: vs' => vadd (map (Qmult a) v) (lin_comb w' vs')
  | _, _ => []
  end.

(* one head at query column z: W_O sum_s hardmax_s((W_K z_s).(W_Q z)) W_V z_s *)
Definition head_out (h : head) (Z : state) (z : vec) : vec :=
  let q := mat_vec (WQ h) z in
  let w := hardmax (map (fun zs => dot (mat_vec (WK h) zs) q) Z) in
  mat_vec (WO h) (lin_comb w (map (mat_vec (WV h)) Z)).

(* attention sublayer: z_t + sum_h head_h(Z, z_t), every head reading the same Z *)
Definition attend (hs : list head) (Z : state) : state :=
  map (fun z => fold_left (fun acc h => vadd acc (head_out h Z z)) hs z) Z.

(* feed-forward sublayer, token-wise: z + W2 ReLU(W1 z + b1) + b2 *)
Definition ffn_apply (f : ffn) (z : vec) : vec :=
  vadd (vadd z (mat_vec (W2 f) (map relu (affine (W1 f) (b1 f) z)))) (b2 f).

(* a block: its attention sublayer (if any), then its feed-forward sublayer (if any) *)
Definition apply_block (Z : state) (b : block) : state :=
  let Z1 := match attn b with None => Z | Some hs => attend hs Z end in
  match ff b with None => Z1 | Some f => map (ffn_apply f) Z1 end.

(* add a to entry r of v *)
Fixpoint add_at (r : nat) (a : Q) (v : vec) : vec :=
  match v, r with
  | [], _ => []
  | y :: v', O => (y + a) :: v'
  | y :: v', S r' => y :: add_at r' a v'
  end.

(* embedding: token t's column is t_offsets[t] + sum_i x_i e_(t_rows[i]) *)
Definition embed (T : Transformer) (x : vec) : state :=
  map (fun off => fold_left (fun v ra => add_at (fst ra) (snd ra) v) (combine (t_rows T) x) off)
      (t_offsets T).

(* from the input x to the outputs: embed, every block in order, read out *)
Definition eval_transformer (T : Transformer) (x : vec) : vec :=
  let Z := fold_left apply_block (t_blocks T) (embed T x) in
  affine (t_out_W T) (t_out_b T) (nth (t_out_token T) Z []).

(* two output vectors agree when they are equal as rationals, entry by entry *)
Definition agree (a b : vec) : Prop := Forall2 Qeq a b.
