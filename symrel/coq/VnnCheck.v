(* VnnCheck.v: a computable checker of vnnlib-unsat certificates (docs/format.md) and its
   soundness theorem, proved once in VnnSound.v:
     check_sound : forall N P steps, check N P steps = true -> vnnlib_unsat N P.
   The checker: for every input disjunct, its box is implied by the disjunct's single-variable
   atoms; the branch-and-bound tree covers the box (a split at x_i = c covers x_i <= c and
   x_i >= c); at every leaf, layer by layer, each ReLU's recorded phase follows from bounds of
   its pre-activation: the forward symbolic forms (exact, never rounded) and, where these
   leave the phase open, the bounds by back-substitution through the layers below (exact);
   and for every unsafe disjunct one atom (of it, or of the input disjunct) has a
   back-substituted lower bound equal to the recorded bound and above the atom's right-hand
   side.
   ReLU splits: a split of a node on neuron i of layer k (counting every layer) covers the
   node by its part where that neuron's pre-activation z is <= 0 and its part where z >= 0.
   The splits on the path to a leaf clip the bounds of z to their sides before the phase is
   checked (an empty clipped range: the leaf's part holds no point), and a close may carry
   one multiplier beta >= 0 per split (beta-CROWN's): right after layer k's phases, the
   coefficient of z gains -beta (side z >= 0) or +beta (side z <= 0), which lowers the bound
   on the leaf's part only. *)
From Coq Require Import QArith Qreduction List Bool Lia Lqa.
From Symrel Require Import Semantics VnnProp.
Import ListNotations.
Open Scope Q_scope.

(* ---- The checker ---- *)

(* a ReLU's recorded phase on a leaf: active (z >= 0), inactive (z <= 0), or unstable, relaxed
   by alpha z <= relu z <= s z + t *)
Inductive phase := Act | Inact | Unst (alpha s t : Q).

(* a layer with the phases of its ReLUs (none for a layer without ReLU) *)
Definition level := (dense * list phase)%type.

(* a < b, decided *)
Definition Qlt_bool (a b : Q) : bool := negb (Qle_bool b a).

(* l with its entry i replaced by f of it *)
Fixpoint set_nth {A} (i : nat) (f : A -> A) (l : list A) : list A :=
  match l, i with
  | [], _ => []
  | a :: l', O => f a :: l'
  | a :: l', S i' => a :: set_nth i' f l'
  end.

(* a ReLU split on the path to a leaf: (k, i, side), neuron i of layer k (every layer
   counted, from 0 at the inputs), side true for the part z >= 0, false for z <= 0 *)
Definition rsplit := (nat * nat * bool)%type.

(* the splits of layer k: (neuron, side) *)
Fixpoint sides_at (k : nat) (sp : list rsplit) : list (nat * bool) :=
  match sp with
  | [] => []
  | (k', i, s) :: sp' => if Nat.eqb k k' then (i, s) :: sides_at k sp' else sides_at k sp'
  end.

Definition zeros (k : nat) : vec := repeat 0 k.

(* min over the box of f . x *)
Fixpoint box_min (f : vec) (B : Box) : Q :=
  match f, B with
  | a :: f', lu :: B' => (if Qle_bool 0 a then a * fst lu else a * snd lu) + box_min f' B'
  | _, _ => 0
  end.

(* Some k when db = da k and da is a power of two (then a + b needs no gcd) *)
Fixpoint divk (da db : positive) : option positive :=
  match da, db with
  | xH, _ => Some db
  | xO da', xO db' => divk da' db'
  | _, _ => None
  end.

(* a + b: over the larger denominator when one dyadic denominator divides the other, else
   reduced *)
Definition qadd (a b : Q) : Q :=
  match divk (Qden a) (Qden b) with
  | Some k => (Qnum a * Zpos k + Qnum b) # Qden b
  | None =>
      match divk (Qden b) (Qden a) with
      | Some k => (Qnum b * Zpos k + Qnum a) # Qden a
      | None => Qred (a + b)
      end
  end.

(* a . b, summed with qadd *)
Fixpoint qdot (a b : vec) : Q :=
  match a, b with
  | x :: a', y :: b' => qadd (x * y) (qdot a' b')
  | _, _ => 0
  end.

(* acc + m r, entry by entry *)
Fixpoint scale_add (m : Q) (r acc : vec) : vec :=
  match r, acc with
  | a :: r', b :: acc' => qadd b (m * a) :: scale_add m r' acc'
  | _, _ => []
  end.

(* acc + W^T nu, skipping the zero entries of nu *)
Fixpoint tmul (W : mat) (nu : vec) (acc : vec) : vec :=
  match W, nu with
  | r :: W', m :: nu' => tmul W' nu' (if Qeq_bool m 0 then acc else scale_add m r acc)
  | _, _ => acc
  end.

(* a lower bound nu . z + c of mu . relu(z), by the phases *)
Fixpoint relax (ph : list phase) (mu : vec) : vec * Q :=
  match ph, mu with
  | p :: ph', m :: mu' =>
      let (nu, c) := relax ph' mu' in
      match p with
      | Act => (m :: nu, c)
      | Inact => (0 :: nu, c)
      | Unst a s t => if Qle_bool 0 m then (m * a :: nu, c) else (m * s :: nu, qadd c (m * t))
      end
  | _, _ => ([], 0)
  end.

(* the width of the top of a stack of levels (top first) over n inputs *)
Definition width (lv : list level) (n : nat) : nat :=
  match lv with [] => n | (l, _) :: _ => length (dn_W l) end.

(* the multipliers of the splits of layer k added to the coefficients nu of its
   pre-activations: -beta on side z >= 0, +beta on side z <= 0 *)
Fixpoint add_betas (k : nat) (bs : list (rsplit * Q)) (nu : vec) : vec :=
  match bs with
  | [] => nu
  | ((k', i, s), beta) :: bs' =>
      add_betas k bs' (if Nat.eqb k k' then set_nth i (fun m => qadd m (if s then - beta else beta)) nu else nu)
  end.

(* a lower bound over the box B of mu . v + c + ax . x, where v is the output of the stack lv
   (top first) at the input x: substitute the layers backwards; bs: the splits' multipliers
   (none for the bounds of a pre-activation) *)
Fixpoint back (lv : list level) (bs : list (rsplit * Q)) (mu : vec) (c : Q) (ax : vec) (B : Box) : Q :=
  match lv with
  | [] => Qred (box_min (vadd mu ax) B + c)
  | (l, ph) :: rest =>
      let (nu0, c1) := if dn_relu l then relax ph mu else (mu, 0) in
      let nu := add_betas (length rest) bs nu0 in
      back rest bs (tmul (dn_W l) nu (zeros (width rest (length B)))) (qadd (qadd c c1) (qdot nu (dn_b l))) ax B
  end.

(* the pre-activation r . v + b of a neuron, bounded below and above on B *)
Definition lower (lv : list level) (B : Box) (r : vec) (b : Q) : Q := back lv [] r b (zeros (length B)) B.
Definition upper (lv : list level) (B : Box) (r : vec) (b : Q) : Q :=
  - back lv [] (map Qopp r) (- b) (zeros (length B)) B.

(* forward symbolic forms: f = (coefficients over the input x, constant) stands for f . x + c *)
Definition form := (vec * Q)%type.

(* the identity forms x_0, .., x_(n-1) *)
Fixpoint id_forms (n : nat) : list form :=
  match n with
  | O => []
  | S m => (1 :: zeros m, 0) :: map (fun f => (0 :: fst f, snd f)) (id_forms m)
  end.

(* acc + sum_j r_j F_j, with F_j = L_j where r_j >= 0 and U_j where r_j < 0: a lower form of
   r . v when L <= v <= U (an upper form with L and U exchanged) *)
Definition comb_acc (a : Q) (l u : form) (acc : form) : form :=
  if Qeq_bool a 0 then acc
  else let f := if Qle_bool 0 a then l else u in (scale_add a (fst f) (fst acc), qadd (snd acc) (a * snd f)).

Fixpoint comb (r : vec) (L U : list form) (acc : form) : form :=
  match r, L, U with
  | a :: r', l :: L', u :: U' => comb r' L' U' (comb_acc a l u acc)
  | _, _, _ => acc
  end.

(* the lower and upper forms of every pre-activation W v + b *)
Fixpoint layer_forms (n : nat) (L U : list form) (W : mat) (b : vec) : list (form * form) :=
  match W, b with
  | r :: W', c :: b' => (comb r L U (zeros n, c), comb r U L (zeros n, c)) :: layer_forms n L U W' b'
  | _, _ => []
  end.

Definition form_min (f : form) (B : Box) : Q := box_min (fst f) B + snd f.
Definition form_max (f : form) (B : Box) : Q := - box_min (map Qopp (fst f)) B + snd f.

(* the forms of relu(z) from those of z, by the phase *)
Definition act_forms (n : nat) (p : phase) (lf uf : form) : form * form :=
  match p with
  | Act => (lf, uf)
  | Inact => ((zeros n, 0), (zeros n, 0))
  | Unst a s t => ((map (Qmult a) (fst lf), a * snd lf), (map (Qmult s) (fst uf), s * snd uf + t))
  end.

Definition qmin (a b : Q) : Q := if Qle_bool a b then a else b.

(* the phase follows from lz <= z <= uz (any phase when uz < lz: no z) *)
Definition phase_checks_with (lz uz : Q) (p : phase) : bool :=
  Qlt_bool uz lz ||
  match p with
  | Act => Qle_bool 0 lz
  | Inact => Qle_bool uz 0
  | Unst a s t =>
      Qle_bool 0 a && Qle_bool a 1 && Qle_bool 0 s
      && Qle_bool 0 (s * lz + t) && Qle_bool lz (s * lz + t)
      && Qle_bool 0 (s * uz + t) && Qle_bool uz (s * uz + t)
  end.

(* the bounds lz <= z <= uz of neuron i clipped to the sides of its splits *)
Fixpoint clip (sides : list (nat * bool)) (i : nat) (lz uz : Q) : Q * Q :=
  match sides with
  | [] => (lz, uz)
  | (j, s) :: sides' =>
      if Nat.eqb i j then (if s then clip sides' i (qmax lz 0) uz else clip sides' i lz (qmin uz 0))
      else clip sides' i lz uz
  end.

(* first with the forward bounds; where they leave the phase open, with the back-substituted
   bounds too; both clipped to the sides of neuron i's splits *)
Definition phase_checks (lv : list level) (B : Box) (r : vec) (b : Q) (lzf uzf : Q) (p : phase)
    (sides : list (nat * bool)) (i : nat) : bool :=
  if phase_checks_with (fst (clip sides i lzf uzf)) (snd (clip sides i lzf uzf)) p then true
  else let lu := clip sides i (qmax lzf (lower lv B r b)) (qmin uzf (upper lv B r b)) in
       phase_checks_with (fst lu) (snd lu) p.

(* a ReLU layer, from its neuron i on (sides: the splits of the layer): every phase checked;
   the forms of its outputs *)
Fixpoint relu_step (lv : list level) (B : Box) (sides : list (nat * bool)) (i : nat) (W : mat) (b : vec)
    (zf : list (form * form)) (ph : list phase) : option (list form * list form) :=
  match W, b, zf, ph with
  | [], [], [], [] => Some ([], [])
  | r :: W', c :: b', (lf, uf) :: zf', p :: ph' =>
      if phase_checks lv B r c (form_min lf B) (form_max uf B) p sides i then
        match relu_step lv B sides (S i) W' b' zf' ph' with
        | Some (L', U') => let (l2, u2) := act_forms (length B) p lf uf in Some (l2 :: L', u2 :: U')
        | None => None
        end
      else None
  | _, _, _, _ => None
  end.

(* every row of the layer reads m inputs, one bias per row *)
Definition fits (l : dense) (m : nat) : bool :=
  forallb (fun r => Nat.eqb (length r) m) (dn_W l) && Nat.eqb (length (dn_b l)) (length (dn_W l)).

(* the layers bottom-up with their phases and the forms L <= v <= U of the current layer's
   input v: each layer fits, each ReLU's phase is checked on B and the splits sp *)
Fixpoint check_levels (B : Box) (sp : list rsplit) (below : list level) (L U : list form) (Ls : list dense)
    (Ps : list (list phase)) : option (list level) :=
  match Ls, Ps with
  | [], [] => Some below
  | l :: Ls', ph :: Ps' =>
      if fits l (width below (length B)) then
        let zf := layer_forms (length B) L U (dn_W l) (dn_b l) in
        match (if dn_relu l then relu_step below B (sides_at (length below) sp) 0 (dn_W l) (dn_b l) zf ph
               else Some (map fst zf, map snd zf)) with
        | Some (L', U') => check_levels B sp ((l, ph) :: below) L' U' Ls' Ps'
        | None => None
        end
      else None
  | _, _ => None
  end.

(* a close's own lower slopes: one entry per neuron of a level, the new alpha of each
   unstable one (the other entries are not read) *)
Fixpoint slope_ph (ph : list phase) (al : list Q) : list phase :=
  match ph, al with
  | Unst _ s t :: ph', a :: al' => Unst a s t :: slope_ph ph' al'
  | p :: ph', _ :: al' => p :: slope_ph ph' al'
  | _, _ => ph
  end.

(* the levels (top first) with the slopes sl, one list per level, top first (none: as they are) *)
Fixpoint with_slopes (lv : list level) (sl : list (list Q)) : list level :=
  match lv, sl with
  | (l, ph) :: lv', al :: sl' => (l, slope_ph ph al) :: with_slopes lv' sl'
  | _, _ => lv
  end.

Definition slopes_ok (sl : list (list Q)) : bool :=
  forallb (forallb (fun a => Qle_bool 0 a && Qle_bool a 1)) sl.

(* a leaf closes unsafe disjunct u with atom k of u (true) or of the input disjunct (false),
   whose lower bound on the leaf is recorded, with the multipliers of the leaf's splits
   (in path order; none: all 0) and its own lower slopes, each in [0, 1] (none: the phases') *)
Definition close := (bool * nat * Q * list Q * list (list Q))%type.

Fixpoint check_closes (lv : list level) (B : Box) (sp : list rsplit) (C : list atom) (U : list (list atom))
    (cl : list close) : bool :=
  match U, cl with
  | [], [] => true
  | D :: U', (side, k, bnd, betas, sl) :: cl' =>
      match nth_error (if side then D else C) k with
      | Some a =>
          Nat.eqb (length (at_x a)) (length B) && Nat.eqb (length (at_y a)) (width lv (length B))
          && (Nat.eqb (length betas) 0 || Nat.eqb (length betas) (length sp)) && forallb (Qle_bool 0) betas
          && slopes_ok sl
          && Qeq_bool (back (with_slopes lv sl) (combine sp betas) (at_y a) 0 (at_x a) B) bnd
          && Qlt_bool (at_rhs a) bnd
      | None => false
      end && check_closes lv B sp C U' cl'
  | _, _ => false
  end.

Inductive tree :=
  | Leaf (Ps : list (list phase)) (cl : list close)
  | Split (i : nat) (c : Q) (le ge : tree)    (* the part x_i <= c, then the part x_i >= c *)
  | RSplit (k i : nat) (le ge : tree)         (* neuron i of layer k: the part z <= 0, then z >= 0 *)
  | Empty (i : nat).                            (* hi_i < lo_i: the box is empty *)

(* sp: the ReLU splits on the path from the root, in order *)
Fixpoint check_tree (N : ReluNet) (C : list atom) (U : list (list atom)) (B : Box) (sp : list rsplit) (t : tree)
  : bool :=
  match t with
  | Leaf Ps cl =>
      match check_levels B sp [] (id_forms (length B)) (id_forms (length B)) (rn_layers N) Ps with
      | Some lv => check_closes lv B sp C U cl
      | None => false
      end
  | Split i c le ge =>
      check_tree N C U (set_nth i (fun lu => (fst lu, c)) B) sp le
      && check_tree N C U (set_nth i (fun lu => (c, snd lu)) B) sp ge
  | RSplit k i le ge => check_tree N C U B (sp ++ [(k, i, false)]) le && check_tree N C U B (sp ++ [(k, i, true)]) ge
  | Empty i => match nth_error B i with Some lu => Qlt_bool (snd lu) (fst lu) | None => false end
  end.

(* Some a_i when a = a_i e_i *)
Fixpoint single_coef (i : nat) (a : vec) : option Q :=
  match a, i with
  | [], _ => None
  | q :: a', O => if forallb (Qeq_bool 0) a' then Some q else None
  | q :: a', S i' => if Qeq_bool q 0 then single_coef i' a' else None
  end.

(* the atom says x_i <= hi (or lo <= x_i) *)
Definition gives_upper (i : nat) (hi : Q) (a : atom) : bool :=
  forallb (Qeq_bool 0) (at_y a) &&
  match single_coef i (at_x a) with Some q => Qlt_bool 0 q && Qle_bool (at_rhs a) (q * hi) | None => false end.
Definition gives_lower (i : nat) (lo : Q) (a : atom) : bool :=
  forallb (Qeq_bool 0) (at_y a) &&
  match single_coef i (at_x a) with Some q => Qlt_bool q 0 && Qle_bool (at_rhs a) (q * lo) | None => false end.

Fixpoint box_implied (C : list atom) (i : nat) (B : Box) : bool :=
  match B with
  | [] => true
  | lu :: B' => existsb (gives_lower i (fst lu)) C && existsb (gives_upper i (snd lu)) C && box_implied C (S i) B'
  end.

Fixpoint check_steps (N : ReluNet) (n : nat) (U : list (list atom)) (R : list (list atom)) (steps : list (Box * tree)) : bool :=
  match R, steps with
  | [], [] => true
  | C :: R', (B, t) :: S' =>
      Nat.eqb (length B) n && box_implied C 0 B && check_tree N C U B [] t && check_steps N n U R' S'
  | _, _ => false
  end.

(* one step per input disjunct, in order: its box and its tree *)
Definition check (N : ReluNet) (P : Property) (steps : list (Box * tree)) : bool :=
  check_steps N (p_inputs P) (p_unsafe P) (p_region P) steps.
