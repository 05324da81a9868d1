(* Compiler.v: symrel's construction (THEORY.md section 1; symrel/compiler/*.py) as a Coq
   function, and the computable check of its hypotheses (well-formed net, box of the right
   dimension, one gating bound B per layer with |l_ij| <= B on the layer's input box).
   [compile N Bs] builds exactly the data symrel's compile_maxout writes: the same slots
   [X | P | C | S | O], the same row order, canonical rationals (Qred) where it computes. *)
From Coq Require Import QArith List Bool Arith Lia.
Import ListNotations.
From Symrel Require Import Semantics.
Open Scope Q_scope.

(* ---- The layout (symrel/compiler/bases.py): dx input slots, T tokens, q units. *)
Record layout := { dx : nat; ntok : nat; nq : nat }.
Definition width (L : layout) : nat := dx L + ntok L + 1 + 2 * nq L.
Definition slotX (L : layout) (r : nat) : nat := r.
Definition slotP (L : layout) (t : nat) : nat := dx L + t.
Definition slotC (L : layout) : nat := dx L + ntok L.
Definition slotS (L : layout) (i : nat) : nat := dx L + ntok L + 1 + i.
Definition slotO (L : layout) (i : nat) : nat := dx L + ntok L + 1 + nq L + i.

(* the list (f 0, .., f (n-1)): a vector, or a matrix given row by row *)
Definition vec_of {A} (n : nat) (f : nat -> A) : list A := map f (seq 0 n).
Definition ind (b : bool) (a : Q) : Q := if b then a else 0.
Definition enum {A} (l : list A) : list (nat * A) := combine (seq 0 (length l)) l.

Definition list_max (l : list nat) : nat := fold_right Nat.max 0%nat l.

Definition layout_of (N : MaxoutNet) : layout :=
  let ws := map (@length munit) (mx_layers N) in
  {| dx := Nat.max (mx_input N) (list_max ws);
     ntok := S (list_max (map (fun L => list_max (map (@length piece) L)) (mx_layers N)));
     nq := list_max ws |}.

(* ---- Block 1 (gating, feed-forward): hidden unit u_ij = ReLU(a_ij.X + 2B P_(j+1) + (c_ij - B) C),
   S_i += sum_j u_ij - B. *)
Definition pieces_of (Ly : mlayer) : list (nat * nat * piece) :=
  flat_map (fun iu => map (fun jp => (fst iu, fst jp, snd jp)) (enum (snd iu))) (enum Ly).

Definition gating_block (Lo : layout) (B : Q) (Ly : mlayer) : block :=
  let ps := pieces_of Ly in
  let m := width Lo in
  {| attn := None;
     ff := Some {|
       W1 := map (fun ijp => let '(i, j, (w, c)) := ijp in
                 let cB := Qred (c - B) in     (* once per row: Coq's VM evaluates ind's arguments *)
                 vec_of m (fun p => if p <? dx Lo then nth p w 0
                                    else if p =? slotP Lo (S j) then Qred (2 * B)
                                    else ind (p =? slotC Lo) cB)) ps;
       b1 := map (fun _ => 0) ps;
       W2 := vec_of m (fun p => map (fun ijp => let '(i, _, _) := ijp in ind (p =? slotS Lo i) 1) ps);
       b2 := let mB := Qred (- B) in vec_of m (fun p => ind ((slotS Lo 0 <=? p) && (p <? slotS Lo (length Ly))) mB) |} |}.

(* ---- Block 2 (max, attention): head i has query C, key = value = S_i, output O_i. *)
Definition unit_vec (m k : nat) : vec := vec_of m (fun p => ind (p =? k) 1).

Definition max_block (Lo : layout) (Ly : mlayer) : block :=
  let m := width Lo in
  {| attn := Some (map (fun i => {| WQ := [unit_vec m (slotC Lo)]; WK := [unit_vec m (slotS Lo i)];
                                   WV := [unit_vec m (slotS Lo i)];
                                   WO := map (fun x => [x]) (unit_vec m (slotO Lo i)) |})
                       (seq 0 (length Ly)));
     ff := None |}.

(* ---- Block 3 (move, feed-forward): X <- (O, 0), S <- 0, O <- 0, each change delta
   written ReLU(delta) - ReLU(-delta); only X_r (r < max(n, q)), S_i, O_i (i < q) move. *)
Definition changes (Lo : layout) (n q : nat) : list (nat * (nat -> Q)) :=
  map (fun r => (slotX Lo r, fun p => if p =? slotX Lo r then -1 else ind ((r <? q) && (p =? slotO Lo r)) 1))
      (seq 0 (Nat.max n q))
  ++ flat_map (fun i => [(slotS Lo i, fun p => ind (p =? slotS Lo i) (-1));
                         (slotO Lo i, fun p => ind (p =? slotO Lo i) (-1))]) (seq 0 q).

Definition move_block (Lo : layout) (n : nat) (Ly : mlayer) : block :=
  let cs := changes Lo n (length Ly) in
  let m := width Lo in
  {| attn := None;
     ff := Some {|
       W1 := flat_map (fun sd => [vec_of m (snd sd); vec_of m (fun p => - snd sd p)]) cs;
       b1 := flat_map (fun _ => [0; 0]) cs;
       W2 := vec_of m (fun p => flat_map (fun sd => [ind (p =? fst sd) 1; ind (p =? fst sd) (-1)]) cs);
       b2 := vec_of m (fun _ => 0) |} |}.

(* the three blocks of every layer; n is the layer's input width *)
Fixpoint layer_blocks (Lo : layout) (n : nat) (Ls : list mlayer) (Bs : list Q) : list block :=
  match Ls, Bs with
  | Ly :: Ls', B :: Bs' =>
      gating_block Lo B Ly :: max_block Lo Ly :: move_block Lo n Ly :: layer_blocks Lo (length Ly) Ls' Bs'
  | _, _ => []
  end.

Definition last_width (N : MaxoutNet) : nat :=
  fold_left (fun _ L => length L) (mx_layers N) (mx_input N).

(* ---- Embedding (X = x, P = e_t, C = 1) and read-out (the net's read-out on the X slots of
   token 0; the identity when the net has none). *)
Definition compile (N : MaxoutNet) (Bs : list Q) : Transformer :=
  let Lo := layout_of N in
  let m := width Lo in
  let place row := vec_of m (fun p => if p <? dx Lo then nth p row 0 else 0) in
  let q := last_width N in
  {| t_rows := seq 0 (mx_input N);
     t_offsets := map (fun t => vec_of m (fun p => ind ((p =? slotP Lo t) || (p =? slotC Lo)) 1)) (seq 0 (ntok Lo));
     t_blocks := layer_blocks Lo (mx_input N) (mx_layers N) Bs;
     t_out_token := 0;
     t_out_W := match mx_readout N with
                | Some (W, _) => map place W
                | None => map (fun k => unit_vec m k) (seq 0 q) end;
     t_out_b := match mx_readout N with Some (_, b) => b | None => map (fun _ => 0) (seq 0 q) end |}.

(* ---- The computable check of the theorem's hypotheses. *)

(* ---- The exact range of w.v + c over the box D (interval arithmetic, exact for one form).
   The numbers are not reduced (a gcd of 200-bit numbers in Coq's VM costs far more than
   the sums): every weight and bias of a layer is written over one common denominator W
   (the lcm of the layer's denominators), every bound of the box over one denominator d,
   so that every product a * l has the denominator W * d and the sums add numerators
   only (qadd). The next layer's box then has the common denominator W * d again. *)

(* x written over k times its denominator (the same rational) *)
Definition qexpand (x : Q) (k : positive) : Q := Qmake (Qnum x * Zpos k) (Qden x * k).

(* x written over the denominator d when its denominator divides d (else x itself) *)
Definition over (d : positive) (x : Q) : Q :=
  if Pos.eqb (Qden x) d then x else qexpand x (Z.to_pos (Zpos d / Zpos (Qden x))).

(* a + b, adding the numerators when the denominators are equal *)
Definition qadd (a b : Q) : Q :=
  if Pos.eqb (Qden a) (Qden b) then Qmake (Qnum a + Qnum b) (Qden a) else a + b.

(* a <= b, comparing the numerators when the denominators are equal *)
Definition qle (a b : Q) : bool :=
  if Pos.eqb (Qden a) (Qden b) then Z.leb (Qnum a) (Qnum b) else Qle_bool a b.

Definition plcm (a b : positive) : positive := if Pos.eqb a b then a else Z.to_pos (Z.lcm (Zpos a) (Zpos b)).

(* the common denominators: of a box's bounds, of a layer's weights and biases *)
Definition box_den (D : Box) : positive := fold_left (fun d lu => plcm (plcm d (Qden (fst lu))) (Qden (snd lu))) D 1%positive.
Definition layer_den (Ly : mlayer) : positive :=
  fold_left (fun d u => fold_left (fun d p => fold_left (fun d a => plcm d (Qden a)) (fst p) (plcm d (Qden (snd p)))) u d)
            Ly 1%positive.

(* the range of w.v over D, each weight over W and each bound over d *)
Fixpoint range_lin (W d : positive) (w : vec) (D : Box) : Q * Q :=
  match w, D with
  | a :: w', (l, u) :: D' =>
      let '(lo, hi) := range_lin W d w' D' in
      if Z.eqb (Qnum a) 0 then (lo, hi) else      (* a zero weight adds nothing *)
      let a' := over W a in
      let al := a' * over d l in
      let au := a' * over d u in
      if qle al au then (qadd al lo, qadd au hi) else (qadd au lo, qadd al hi)
  | _, _ => (0, 0)
  end.

Definition range_piece (W d : positive) (D : Box) (p : piece) : Q * Q :=
  let '(lo, hi) := range_lin W d (fst p) D in
  let c := over (W * d) (snd p) in (qadd lo c, qadd hi c).

(* the ranges of every piece of the layer on D *)
Definition layer_ranges (D : Box) (Ly : mlayer) : list (list (Q * Q)) :=
  let W := layer_den Ly in let d := box_den D in map (map (range_piece W d D)) Ly.

(* every range within [-B, B]; the box of the units' ranges *)
Definition ranges_ok (B : Q) (rs : list (list (Q * Q))) : bool :=
  forallb (forallb (fun r => Qle_bool (- B) (fst r) && Qle_bool (snd r) B)) rs.
Definition box_of (rs : list (list (Q * Q))) : Box := map (fun ru => (max_list (map fst ru), max_list (map snd ru))) rs.

(* every piece of the layer within [-B, B] on D; the next box is the units' ranges *)
Definition layer_ok (D : Box) (B : Q) (Ly : mlayer) : bool := ranges_ok B (layer_ranges D Ly).
Definition next_box (D : Box) (Ly : mlayer) : Box := box_of (layer_ranges D Ly).

(* dimensions: every unit has a piece, every piece reads n inputs, the read-out fits *)
Definition layer_wf (n : nat) (Ly : mlayer) : bool :=
  negb (Nat.eqb (length Ly) 0)
  && forallb (fun u => negb (Nat.eqb (length u) 0) && forallb (fun p => Nat.eqb (length (fst p)) n) u) Ly.

Fixpoint layers_ok (n : nat) (D : Box) (Ls : list mlayer) (Bs : list Q) : bool :=
  match Ls, Bs with
  | [], [] => true
  | Ly :: Ls', B :: Bs' =>
      let rs := layer_ranges D Ly in       (* once, for the check and for the next box *)
      layer_wf n Ly && ranges_ok B rs && layers_ok (length Ly) (box_of rs) Ls' Bs'
  | _, _ => false
  end.

Definition readout_ok (q : nat) (r : option (mat * vec)) : bool :=
  match r with
  | None => true
  | Some (W, b) => Nat.eqb (length W) (length b) && forallb (fun row => Nat.eqb (length row) q) W
  end.

Definition certify (N : MaxoutNet) (D : Box) (Bs : list Q) : bool :=
  Nat.eqb (length D) (mx_input N) && negb (Nat.eqb (length (mx_layers N)) 0)
  && layers_ok (mx_input N) D (mx_layers N) Bs && readout_ok (last_width N) (mx_readout N).

(* ---- ReLU nets through their maxout form (Paper A, Cor 3.3; symrel/models/relu_to_maxout.py):
   each ReLU is the rank-2 unit max(0, z); a layer without activation folds into the next. *)
Definition compose (W : mat) (b : vec) (W' : mat) (b' : vec) : mat * vec :=
  (map (fun row => map (fun k => Qred (dot row (map (fun r => nth k r 0) W'))) (seq 0 (length (hd [] W')))) W,
   map Qred (vadd (mat_vec W b') b)).

Fixpoint relu_layers (n : nat) (pending : option (mat * vec)) (ls : list dense)
  : list mlayer * option (mat * vec) :=
  match ls with
  | [] => ([], pending)
  | l :: ls' =>
      let '(W, b) := match pending with None => (dn_W l, dn_b l)
                                      | Some (W', b') => compose (dn_W l) (dn_b l) W' b' end in
      let n' := match pending with None => n | Some (W', _) => length (hd [] W') end in
      if dn_relu l then
        let Ly := map (fun wc => [(repeat 0 n', 0); wc]) (combine W b) in
        let '(Ls, r) := relu_layers (length W) None ls' in (Ly :: Ls, r)
      else relu_layers n (Some (W, b)) ls'
  end.

Definition relu_to_maxout (R : ReluNet) : MaxoutNet :=
  match relu_layers (rn_input R) None (rn_layers R) with
  | ([], Some (W, b)) => {| mx_input := rn_input R; mx_layers := [map (fun wc => [wc]) (combine W b)];
                            mx_readout := None |}
  | (Ls, r) => {| mx_input := rn_input R; mx_layers := Ls; mx_readout := r |}
  end.

(* the check of a ReLU net: its dimensions chain, and its maxout form passes certify *)
Fixpoint dense_wf (n : nat) (ls : list dense) : bool :=
  match ls with
  | [] => true
  | l :: ls' => negb (Nat.eqb (length (dn_W l)) 0) && Nat.eqb (length (dn_W l)) (length (dn_b l))
                && forallb (fun r => Nat.eqb (length r) n) (dn_W l) && dense_wf (length (dn_W l)) ls'
  end.

Definition relu_wf (R : ReluNet) : bool := negb (Nat.eqb (length (rn_layers R)) 0) && dense_wf (rn_input R) (rn_layers R).

Definition certify_relu (R : ReluNet) (D : Box) (Bs : list Q) : bool :=
  relu_wf R && certify (relu_to_maxout R) D Bs.
