(* LayeredCheck.v: a computable checker of vnnlib-unsat certificates of layered nets
   (docs/format.md, "Layered nets"), proved sound once in LayeredSound.v:
     check_layered_sound : forall N P steps, check_layered N P steps = true -> layered_unsat N P.
   For every input disjunct, its box is implied by the disjunct's atoms (the atoms named by the
   hints), and its tree covers the box: an input split, a ReLU split (entry i of the vector op k
   reads is <= 0, then >= 0), a max split (one part per position p of the group: piece p is the
   largest), a split by unsafe disjunct (subtree u closes disjunct u alone). At a leaf, op by op
   from the input, the bounds of the vector each op reads are computed as the Python checker
   does (an affine op's exact interval image, refined entries by backward substitution rounded
   outward to 2^-24, ReLU splits clipping their entries), and the lines of every ReLU and max op
   follow from them by the rules of docs/format.md; each line is then checked to hold on its
   range (so the rules are not trusted). A range found empty closes the leaf (its part holds no
   point); otherwise each close's bound is recomputed by substituting backwards from the atom's
   output coefficients, with the close's own slopes, pieces, lines over an affine op's inputs
   (each checked on the box of those inputs) and the multipliers of the path's splits, and must
   equal the recorded bound and exceed the atom's right-hand side.
   Vectors of coefficients are maps from positive keys (entry j at key j + 1). *)
From Coq Require Import QArith Qround List Bool.
From Symrel Require Import Semantics VnnProp Layered.
From Symrel Require VnnCheck.
Import ListNotations.
Open Scope Q_scope.

(* ---- numbers ---- *)
(* a + b: numerators added over a shared denominator, else VnnCheck.qadd (over the larger
   denominator when a dyadic one divides the other, else reduced) *)
Definition qadd (a b : Q) : Q :=
  if Pos.eqb (Qden a) (Qden b) then (Qnum a + Qnum b) # Qden a else VnnCheck.qadd a b.

Definition Qlt_bool (a b : Q) : bool := negb (Qle_bool b a).
Definition qmin (a b : Q) : Q := if Qle_bool a b then a else b.

(* a <= b and a < b, comparing numerators over a shared denominator *)
Definition qle (a b : Q) : bool := if Pos.eqb (Qden a) (Qden b) then Z.leb (Qnum a) (Qnum b) else Qle_bool a b.
Definition qlt (a b : Q) : bool := negb (qle b a).

(* 0 <= a, and the largest element of a non-empty list (0 for []) by qle *)
Definition nonneg (a : Q) : bool := Z.leb 0 (Qnum a).
Definition qmax' (a b : Q) : Q := if qle a b then b else a.
Definition qmaxl (l : list Q) : Q := match l with [] => 0 | a :: r => fold_left qmax' r a end.

(* max(a, 0), over a's denominator *)
Definition pos_part (a : Q) : Q := if nonneg a then a else 0 # Qden a.

Definition K2 : positive := 16777216.    (* 2^24, the bounds' rounding *)
Definition P16 : positive := 65536.      (* 2^16, the slopes' *)

(* floor(2^24 a) / 2^24 and ceil(2^24 a) / 2^24 *)
Definition down24 (a : Q) : Q := Qfloor (a * inject_Z (Zpos K2)) # K2.
Definition up24 (a : Q) : Q := Qceiling (a * inject_Z (Zpos K2)) # K2.

(* ceil(a / b) for b > 0 *)
Definition zup (a b : Z) : Z := - ((- a) / b).

(* ---- maps from positive keys ---- *)
Inductive tr (A : Type) := TL | TN (l : tr A) (o : option A) (r : tr A).
Arguments TL {A}.
Arguments TN {A} _ _ _.

Fixpoint tget {A} (t : tr A) (p : positive) : option A :=
  match t with
  | TL => None
  | TN l o r => match p with xH => o | xO q => tget l q | xI q => tget r q end
  end.

Fixpoint tset {A} (p : positive) (a : A) (t : tr A) : tr A :=
  match p, t with
  | xH, TL => TN TL (Some a) TL
  | xH, TN l _ r => TN l (Some a) r
  | xO q, TL => TN (tset q a TL) None TL
  | xO q, TN l o r => TN (tset q a l) o r
  | xI q, TL => TN TL None (tset q a TL)
  | xI q, TN l o r => TN l o (tset q a r)
  end.

Definition key (j : N) : positive := N.succ_pos j.

Definition qget (t : tr Q) (p : positive) : Q := match tget t p with Some a => a | None => 0 end.
Definition tadd (p : positive) (c : Q) (t : tr Q) : tr Q := tset p (qadd (qget t p) c) t.

(* the entries of l at the keys p, p + 1, ... *)
Fixpoint of_list_from {A} (p : positive) (l : list A) (t : tr A) : tr A :=
  match l with [] => t | a :: l' => of_list_from (Pos.succ p) l' (tset p a t) end.
Definition of_list {A} (l : list A) : tr A := of_list_from 1 l TL.

(* the pairs (j, a) at the keys j + 1 *)
Definition of_pairs {A} (l : list (N * A)) : tr A := fold_left (fun t ja => tset (key (fst ja)) (snd ja) t) l TL.

Definition bget (t : tr (Q * Q)) (j : N) : Q * Q := match tget t (key j) with Some lu => lu | None => (0, 0) end.

(* ---- the box of an input disjunct: its bounds over one common denominator when that is the
   same box (else as it is) ---- *)
Definition box_den (B : Box) : Z :=
  fold_left (fun d lu => Z.lcm d (Z.lcm (Zpos (Qden (fst lu))) (Zpos (Qden (snd lu))))) B 1%Z.

Definition over (d : Z) (a : Q) : Q := (Qnum a * (d / Zpos (Qden a))) # Z.to_pos d.

Definition norm_box (B : Box) : Box :=
  let d := box_den B in
  let B' := map (fun lu => (over d (fst lu), over d (snd lu))) B in
  if forallb (fun p => Qeq_bool (fst (fst p)) (fst (snd p)) && Qeq_bool (snd (fst p)) (snd (snd p))) (combine B B')
     && Nat.eqb (length B) (length B')
  then B' else B.

(* ---- an affine op's interval image ---- *)
(* the bounds of a row's sum w . v over the bounds t of v: a weight >= 0 takes the lower bound
   into the lower sum, one < 0 the upper *)
Fixpoint row_bounds (t : tr (Q * Q)) (r : list (N * Z)) : Q * Q :=
  match r with
  | [] => (0, 0)
  | (j, w) :: r' =>
      let lh := bget t j in
      let s := row_bounds t r' in
      if Z.leb 0 w then (qadd (inject_Z w * fst lh) (fst s), qadd (inject_Z w * snd lh) (snd s))
      else (qadd (inject_Z w * snd lh) (fst s), qadd (inject_Z w * fst lh) (snd s))
  end.

Definition aff_bounds (D : positive) (t : tr (Q * Q)) (rows : list (list (N * Z))) (b : list Z) : list (Q * Q) :=
  map (fun rc => let s := row_bounds t (fst rc) in
                 (qadd (fst s) (inject_Z (snd rc)) * (1 # D), qadd (snd s) (inject_Z (snd rc)) * (1 # D)))
      (combine rows b).

(* ---- the lines of the nonlinear ops ---- *)
(* a ReLU entry on [lo, hi]: (alpha, s, t), the lines alpha z <= relu z <= s z + t: z itself,
   0, or the default lower line and the chord of [lo, hi] rounded outward (docs/format.md) *)
Definition relu_line (lo hi : Q) : Q * Q * Q :=
  if nonneg lo then (1, 1, 0)
  else if Z.leb (Qnum hi) 0 then (0, 0, 0)
  else let lk := Qfloor (lo * inject_Z (Zpos K2)) in
       let uk := Qceiling (hi * inject_Z (Zpos K2)) in
       let si := zup (uk * Zpos P16) (uk - lk) in
       (if Z.leb (- lk) uk then 1 else 0, si # P16, (- si * lk) # (P16 * K2)).

(* the lines hold on [lo, hi]: 0 <= alpha <= 1, and the upper line is above relu at both ends *)
Definition relu_line_ok (lst : Q * Q * Q) (lo hi : Q) : bool :=
  let '(a, s, t) := lst in
  Qle_bool 0 a && Qle_bool a 1 && Qle_bool (relu lo) (s * lo + t) && Qle_bool (relu hi) (s * hi + t).

(* the first position of the largest of f over l (from position i, the best so far at bi, bv) *)
Fixpoint argmax_from (l : list Q) (i bi : nat) (bv : Q) : nat :=
  match l with
  | [] => bi
  | a :: l' => if qlt bv a then argmax_from l' (S i) i a else argmax_from l' (S i) bi bv
  end.
Definition argmax (l : list Q) : nat :=
  match l with [] => O | a :: l' => argmax_from l' 1 0 a end.

(* l without its entry at position k *)
Fixpoint drop_nth {A} (k : nat) (l : list A) : list A :=
  match l, k with
  | [], _ => []
  | _ :: l', O => l'
  | a :: l', S k' => a :: drop_nth k' l'
  end.

(* a group with piece bounds lh (by position) and the winner of a max split of it on the path
   (if any): (low, top, s, t), the lines x_low <= y <= s x_top + t (docs/format.md) *)
Definition max_line (lh : list (Q * Q)) (winner : option nat) : nat * nat * Q * Q :=
  match winner with
  | Some w => (w, w, 1, 0)
  | None =>
      let los := map fst lh in
      let his := map snd lh in
      let p := argmax los in
      let lop := nth p los 0 in
      if forallb (fun h => qle h lop) (drop_nth p his) then (p, p, 1, 0)
      else let k := argmax his in
           let M := qmaxl (drop_nth k his) in
           let lk := Qfloor (nth k los 0 * inject_Z (Zpos K2)) in
           let uk := Qceiling (nth k his 0 * inject_Z (Zpos K2)) in
           let Mk := Qceiling (M * inject_Z (Zpos K2)) in
           let si := zup ((uk - Mk) * Zpos P16) (uk - lk) in
           (p, k, si # P16, (Mk * Zpos P16 - si * lk) # (P16 * K2))
  end.

(* the lines hold on the bounds: low and top are positions of the group; the upper line is
   x_top itself on a max split won by top, or else it lies above x_top and above every other
   piece's upper bound at both ends of x_top's range *)
Definition max_line_ok (lh : list (Q * Q)) (winner : option nat) (ln : nat * nat * Q * Q) : bool :=
  let '(low, top, s, t) := ln in
  Nat.ltb low (length lh) && Nat.ltb top (length lh) &&
  (match winner with Some w => Nat.eqb w top && Qeq_bool s 1 && Qeq_bool t 0 | None => false end
   || (let lt := fst (nth top lh (0, 0)) in
       let ht := snd (nth top lh (0, 0)) in
       let yl := s * lt + t in
       let yh := s * ht + t in
       Qle_bool lt yl && Qle_bool ht yh && forallb (fun h => Qle_bool h yl && Qle_bool h yh) (map snd (drop_nth top lh)))).

(* the range of the group's max: [max lo, hi of the winner] or [max lo, max hi] *)
Definition max_range (lh : list (Q * Q)) (winner : option nat) : Q * Q :=
  (qmaxl (map fst lh), match winner with Some w => snd (nth w lh (0, 0)) | None => qmaxl (map snd lh) end).

(* ---- splits of a node ---- *)
(* SR k i side: entry i of the vector op k reads is >= 0 (true) or <= 0 (false);
   SM k g p: piece p of group g of op k is the largest of the group *)
Inductive lsplit := SR (k : nat) (i : N) (side : bool) | SM (k : nat) (g : N) (p : nat).

Fixpoint winner (sp : list lsplit) (k : nat) (g : N) : option nat :=
  match sp with
  | [] => None
  | SM k' g' p :: sp' => if Nat.eqb k k' && N.eqb g g' then Some p else winner sp' k g
  | _ :: sp' => winner sp' k g
  end.

Fixpoint set_nth {A} (i : nat) (f : A -> A) (l : list A) : list A :=
  match l, i with
  | [], _ => []
  | a :: l', O => f a :: l'
  | a :: l', S i' => a :: set_nth i' f l'
  end.

(* the bounds of op k's entries clipped to the sides of the ReLU splits *)
Fixpoint clip (sp : list lsplit) (k : nat) (bn : list (Q * Q)) : list (Q * Q) :=
  match sp with
  | [] => bn
  | SR k' i side :: sp' =>
      clip sp' k (if Nat.eqb k k' then
                    set_nth (N.to_nat i) (fun lh => if side then (qmax (fst lh) 0, snd lh) else (fst lh, qmin (snd lh) 0)) bn
                  else bn)
  | _ :: sp' => clip sp' k bn
  end.

(* ---- a leaf's levels (top first) ---- *)
Inductive level :=
  | VAff (D : positive) (rows : list (list (N * Z))) (b : list Z)
  | VRelu (lines : list (Q * Q * Q))
  | VMax (groups : list (list N)) (lines : list (nat * nat * Q * Q)).

Definition level_op (l : level) : lop :=
  match l with VAff D rows b => LAffine D rows b | VRelu _ => LRelu | VMax groups _ => LMax groups end.

(* what a close adds to the lines: (k, i, a) a lower slope of entry i of ReLU op k; (k, g, p) the
   lower piece of group g of max op k; (k, i, a, c) a line h_i <= a . (the entries of row i of
   affine op k - 1 at the vector it reads) + c; a multiplier per ReLU split and a list per max
   split of the path, in path order *)
Record lclose := {
  cl_region : bool;          (* the atom is of the input disjunct (true) or of the unsafe one *)
  cl_atom : N;
  cl_bound : Q;
  cl_beta : list Q;
  cl_lambda : list (list Q);
  cl_alpha : list (nat * N * Q);
  cl_piece : list (nat * N * nat);
  cl_hull : list (nat * N * list Q * Q) }.

Definition no_close : lclose := {| cl_region := false; cl_atom := 0; cl_bound := 0; cl_beta := [];
  cl_lambda := []; cl_alpha := []; cl_piece := []; cl_hull := [] |}.

Fixpoint relu_splits (sp : list lsplit) : list (nat * N * bool) :=
  match sp with [] => [] | SR k i s :: sp' => (k, i, s) :: relu_splits sp' | _ :: sp' => relu_splits sp' end.
Fixpoint max_splits (sp : list lsplit) : list (nat * N * nat) :=
  match sp with [] => [] | SM k g p :: sp' => (k, g, p) :: max_splits sp' | _ :: sp' => max_splits sp' end.

(* the multipliers of op k's ReLU splits: (entry, side, beta) *)
Definition betas_at (k : nat) (bs : list ((nat * N * bool) * Q)) : list (N * bool * Q) :=
  flat_map (fun x => let '((k', i, s), beta) := x in if Nat.eqb k k' then [(i, s, beta)] else []) bs.
Definition lambdas_at (k : nat) (ls : list ((nat * N * nat) * list Q)) : list (N * nat * list Q) :=
  flat_map (fun x => let '((k', g, p), lam) := x in if Nat.eqb k k' then [(g, p, lam)] else []) ls.
Definition alphas_at (k : nat) (al : list (nat * N * Q)) : tr Q :=
  of_pairs (flat_map (fun x => let '(k', i, a) := x in if Nat.eqb k k' then [(i, a)] else []) al).
Definition pieces_at (k : nat) (pc : list (nat * N * nat)) : tr nat :=
  of_pairs (flat_map (fun x => let '(k', g, p) := x in if Nat.eqb k k' then [(g, p)] else []) pc).
Definition hulls_at (k : nat) (hl : list (nat * N * list Q * Q)) : tr (list Q * Q) :=
  of_pairs (flat_map (fun x => let '(k', i, a, c) := x in if Nat.eqb k k' then [(i, (a, c))] else []) hl).

(* ---- substituting backwards ---- *)
(* acc + v W^T / D and c + v . b / D over the rows, v the coefficients (from key p) *)
Fixpoint scatter (vd : Q) (r : list (N * Z)) (acc : tr Q) : tr Q :=
  match r with [] => acc | (j, w) :: r' => scatter vd r' (tadd (key j) (vd * inject_Z w) acc) end.

Fixpoint aff_back (D : positive) (rows : list (list (N * Z))) (b : list Z) (mu : tr Q) (p : positive)
    (acc : tr Q) (c : Q) : tr Q * Q :=
  match rows, b with
  | r :: rows', bi :: b' =>
      let v := qget mu p in
      if Qeq_bool v 0 then aff_back D rows' b' mu (Pos.succ p) acc c
      else let vd := v * (1 # D) in aff_back D rows' b' mu (Pos.succ p) (scatter vd r acc) (qadd c (vd * inject_Z bi))
  | _, _ => (acc, c)
  end.

(* min over the box of a . u + c - z, z = (row . u + bi) / D, over the row's columns (a paired with
   them in order), u in the box t; a . u + c alone when the row is [] (zr false) *)
Fixpoint hull_min (t : tr (Q * Q)) (r : list (N * Z)) (a : list Q) (D : positive) (zr : bool) : Q :=
  match r, a with
  | (j, w) :: r', aj :: a' =>
      let f := if zr then aj - inject_Z w * (1 # D) else aj in
      (if Qle_bool 0 f then f * fst (bget t j) else f * snd (bget t j)) + hull_min t r' a' D zr
  | _, _ => 0
  end.

(* the line a . u + c is above relu((row . u + bi) / D) on the box t of u *)
Definition hull_ok (t : tr (Q * Q)) (r : list (N * Z)) (bi : Z) (D : positive) (a : list Q) (c : Q) : bool :=
  Nat.eqb (length r) (length a) && Qle_bool 0 (hull_min t r a D false + c)
  && Qle_bool 0 (hull_min t r a D true + c - inject_Z bi * (1 # D)).

(* the line's coefficients at the row's columns, times v *)
Fixpoint hull_scatter (v : Q) (r : list (N * Z)) (a : list Q) (acc : tr Q) : tr Q :=
  match r, a with
  | (j, _) :: r', aj :: a' => hull_scatter v r' a' (tadd (key j) (v * aj) acc)
  | _, _ => acc
  end.

(* the affine op below a ReLU op: its denominator, rows and biases (as maps) and the bounds of
   the vector it reads *)
Definition below_aff := (positive * tr (list (N * Z)) * tr Z * tr (Q * Q))%type.

(* a negative coefficient v of a ReLU entry (key p) with upper line s z + t: v times the
   close's line over the input of the affine op below when it has one that holds there, else
   v times the upper line; the new acc, pend and constant *)
Definition relu_neg (hl : tr (list Q * Q)) (ba : option below_aff) (p : positive) (v s t : Q)
    (acc pend : tr Q) (c : Q) : tr Q * tr Q * Q :=
  let chord := (tadd p (v * s) acc, pend, qadd c (v * t)) in
  match tget hl p, ba with
  | Some (ah, ch), Some (D, rt, bt, t0) =>
      match tget rt p, tget bt p with
      | Some r, Some bi => if hull_ok t0 r bi D ah ch then (acc, hull_scatter v r ah pend, qadd c (v * ch)) else chord
      | _, _ => chord
      end
  | _, _ => chord
  end.

(* a ReLU op's coefficients mu (from key p) onto its input (into acc) and, by a close's lines,
   onto the input of the affine op below (into pend) *)
Fixpoint relu_back (lines : list (Q * Q * Q)) (al : tr Q) (hl : tr (list Q * Q)) (ba : option below_aff)
    (mu : tr Q) (p : positive) (acc pend : tr Q) (c : Q) : tr Q * tr Q * Q :=
  match lines with
  | [] => (acc, pend, c)
  | (a, s, t) :: lines' =>
      let v := qget mu p in
      if Qeq_bool v 0 then relu_back lines' al hl ba mu (Pos.succ p) acc pend c
      else if Qle_bool 0 v then
        let a' := match tget al p with Some a1 => if Qle_bool 0 a1 && Qle_bool a1 1 then a1 else a | None => a end in
        relu_back lines' al hl ba mu (Pos.succ p) (tadd p (v * a') acc) pend c
      else let '(acc', pend', c') := relu_neg hl ba p v s t acc pend c in
           relu_back lines' al hl ba mu (Pos.succ p) acc' pend' c'
  end.

(* a max op's coefficients mu (from key p) onto its input *)
Fixpoint max_back (groups : list (list N)) (lines : list (nat * nat * Q * Q)) (pc : tr nat) (mu : tr Q) (p : positive)
    (acc : tr Q) (c : Q) : tr Q * Q :=
  match groups, lines with
  | g :: groups', (low, top, s, t) :: lines' =>
      let v := qget mu p in
      if Qeq_bool v 0 then max_back groups' lines' pc mu (Pos.succ p) acc c
      else if Qle_bool 0 v then
        let low' := match tget pc p with Some q => if Nat.ltb q (length g) then q else low | None => low end in
        max_back groups' lines' pc mu (Pos.succ p) (tadd (key (nth low' g 0%N)) v acc) c
      else max_back groups' lines' pc mu (Pos.succ p) (tadd (key (nth top g 0%N)) (v * s) acc) (qadd c (v * t))
  | _, _ => (acc, c)
  end.

(* the multipliers: -beta (side >= 0) or +beta (side <= 0) at a split entry (beta >= 0 only) *)
Fixpoint add_betas (bs : list (N * bool * Q)) (acc : tr Q) : tr Q :=
  match bs with
  | [] => acc
  | (i, s, beta) :: bs' => add_betas bs' (if Qle_bool 0 beta then tadd (key i) (if s then - beta else beta) acc else acc)
  end.

(* lambda_m at piece m, - lambda_m at the winner p (lambda_m >= 0 only) *)
Fixpoint add_lambda (g : list N) (wp : positive) (lam : list Q) (acc : tr Q) : tr Q :=
  match g, lam with
  | j :: g', l :: lam' =>
      add_lambda g' wp lam' (if Qle_bool 0 l then tadd wp (- l) (tadd (key j) l acc) else acc)
  | _, _ => acc
  end.

Fixpoint add_lambdas (groups : list (list N)) (ls : list (N * nat * list Q)) (acc : tr Q) : tr Q :=
  match ls with
  | [] => acc
  | (g, p, lam) :: ls' =>
      let grp := nth (N.to_nat g) groups [] in
      add_lambdas groups ls' (add_lambda grp (key (nth p grp 0%N)) lam acc)
  end.

(* the level below a ReLU op when it is affine, with its rows as maps (only when lines use it) *)
Definition below_of (rest : list level) (inb : list (tr (Q * Q))) (hl : tr (list Q * Q)) : option below_aff :=
  match hl, rest, inb with
  | TL, _, _ => None
  | _, VAff D rows b :: _, t0 :: _ => Some (D, of_list rows, of_list b, t0)
  | _, _, _ => None
  end.

(* lv: the levels, top first; inb: the bounds of the vector each reads (as maps), top first;
   mu: the coefficients over the top level's output, pend over its input; returns the
   coefficients over the input x (two maps) and the constant *)
Fixpoint back (lv : list level) (inb : list (tr (Q * Q))) (cl : lclose) (sp : list lsplit)
    (mu pend : tr Q) (c : Q) : tr Q * tr Q * Q :=
  match lv with
  | [] => (mu, pend, c)
  | l :: rest =>
      let k := length rest in
      let inb' := tl inb in
      match l with
      | VAff D rows b => let '(nu, c') := aff_back D rows b mu 1 pend c in back rest inb' cl sp nu TL c'
      | VRelu lines =>
          let hl := hulls_at k (cl_hull cl) in
          let '(nu, pend', c') := relu_back lines (alphas_at k (cl_alpha cl)) hl (below_of rest inb' hl) mu 1 pend TL c in
          back rest inb' cl sp (add_betas (betas_at k (combine (relu_splits sp) (cl_beta cl))) nu) pend' c'
      | VMax groups lines =>
          let '(nu, c') := max_back groups lines (pieces_at k (cl_piece cl)) mu 1 pend c in
          back rest inb' cl sp (add_lambdas groups (lambdas_at k (combine (max_splits sp) (cl_lambda cl))) nu) TL c'
      end
  end.

(* min over the box B of (nu + pe + ax) . x (from key p) *)
Fixpoint box_val (nu pe : tr Q) (ax : vec) (B : Box) (p : positive) : Q :=
  match B with
  | [] => 0
  | lu :: B' =>
      let f := qadd (qadd (qget nu p) (qget pe p)) (hd 0 ax) in
      qadd (if Qle_bool 0 f then f * fst lu else f * snd lu) (box_val nu pe (tl ax) B' (Pos.succ p))
  end.

(* a lower bound over the leaf's part of mu . v + ax . x, v the output of the levels *)
Definition lower (lv : list level) (inb : list (tr (Q * Q))) (B : Box) (cl : lclose) (sp : list lsplit)
    (mu : tr Q) (ax : vec) : Q :=
  let '(nu, pe, c) := back lv inb cl sp mu TL 0 in qadd (box_val nu pe ax B 1) c.

(* ---- a leaf's bounds and lines, op by op ---- *)
(* the entries of refine: each bound tightened by the backward substitution, rounded outward *)
Fixpoint refine (lv : list level) (inb : list (tr (Q * Q))) (B : Box) (es : list N) (bn : list (Q * Q)) : list (Q * Q) :=
  match es with
  | [] => bn
  | i :: es' =>
      let lb := lower lv inb B no_close [] (tset (key i) 1 TL) [] in
      let ub := - lower lv inb B no_close [] (tset (key i) (-1) TL) [] in
      refine lv inb B es' (set_nth (N.to_nat i) (fun lh => (qmax (fst lh) (down24 lb), qmin (snd lh) (up24 ub))) bn)
  end.

Fixpoint refine_at (k : nat) (rf : list (nat * list N)) : list N :=
  match rf with [] => [] | (k', es) :: rf' => if Nat.eqb k k' then es ++ refine_at k rf' else refine_at k rf' end.

Definition some_empty (bn : list (Q * Q)) : bool := existsb (fun lh => qlt (snd lh) (fst lh)) bn.

Inductive fwd := FBad | FEmpty | FOk (lv : list level) (inb : list (tr (Q * Q))).

(* the groups' lines and ranges *)
Fixpoint max_lines (sp : list lsplit) (k : nat) (t : tr (Q * Q)) (groups : list (list N)) (g : N)
  : option (list (nat * nat * Q * Q) * list (Q * Q)) :=
  match groups with
  | [] => Some ([], [])
  | grp :: groups' =>
      let lh := map (bget t) grp in
      let w := winner sp k g in
      let ln := max_line lh w in
      if max_line_ok lh w ln then
        match max_lines sp k t groups' (N.succ g) with
        | Some (ls, rs) => Some (ln :: ls, max_range lh w :: rs)
        | None => None
        end
      else None
  end.

(* below: the levels so far (top first) with inb, the bounds of the vector each reads; bn: the
   bounds of the vector op k reads *)
Fixpoint leaf_levels (B : Box) (sp : list lsplit) (rf : list (nat * list N)) (k : nat) (below : list level)
    (inb : list (tr (Q * Q))) (bn : list (Q * Q)) (ops : list lop) : fwd :=
  match ops with
  | [] => FOk below inb
  | LAffine D rows b :: ops' =>
      let t := of_list bn in
      if Nat.eqb (length rows) (length b) then
        leaf_levels B sp rf (S k) (VAff D rows b :: below) (t :: inb) (aff_bounds D t rows b) ops'
      else FBad
  | LRelu :: ops' =>
      let bn1 := clip sp k (refine below inb B (refine_at k rf) bn) in
      if some_empty bn1 then FEmpty
      else let lines := map (fun lh => relu_line (fst lh) (snd lh)) bn1 in
           if forallb (fun x => relu_line_ok (fst x) (fst (snd x)) (snd (snd x))) (combine lines bn1) then
             leaf_levels B sp rf (S k) (VRelu lines :: below) (TL :: inb)
                         (map (fun lh => (pos_part (fst lh), pos_part (snd lh))) bn1) ops'
           else FBad
  | LMax groups :: ops' =>
      let bn1 := refine below inb B (refine_at k rf) bn in
      if some_empty bn1 then FEmpty
      else let t := of_list bn1 in
           match max_lines sp k t groups 0 with
           | Some (lines, rs) =>
               if some_empty rs then FEmpty
               else leaf_levels B sp rf (S k) (VMax groups lines :: below) (t :: inb) rs ops'
           | None => FBad
           end
  end.

(* ---- closes ---- *)
(* the close of unsafe disjunct D with an atom of it or of the input disjunct C *)
Definition close_ok (lv : list level) (inb : list (tr (Q * Q))) (B : Box) (sp : list lsplit) (C D : list atom)
    (cl : lclose) : bool :=
  match nth_error (if cl_region cl then C else D) (N.to_nat (cl_atom cl)) with
  | Some a =>
      let v := lower lv inb B cl sp (of_list (at_y a)) (at_x a) in
      Qeq_bool v (cl_bound cl) && Qlt_bool (at_rhs a) (cl_bound cl)
  | None => false
  end.

Fixpoint closes_ok (lv : list level) (inb : list (tr (Q * Q))) (B : Box) (sp : list lsplit) (C : list atom)
    (U : list (list atom)) (cls : list lclose) : bool :=
  match U, cls with
  | [], [] => true
  | D :: U', cl :: cls' => close_ok lv inb B sp C D cl && closes_ok lv inb B sp C U' cls'
  | _, _ => false
  end.

(* the unsafe disjuncts a leaf closes: all, or the one of its split by unsafe disjunct *)
Definition todo (U : list (list atom)) (only : option nat) : list (list atom) :=
  match only with None => U | Some u => match nth_error U u with Some D => [D] | None => [] end end.

Definition check_leaf (net : LNet) (C : list atom) (U : list (list atom)) (only : option nat) (B : Box) (sp : list lsplit)
    (rf : list (nat * list N)) (cls : option (list lclose)) : bool :=
  let B' := norm_box B in
  match leaf_levels B' sp rf 0 [] [] B' (ln_ops net) with
  | FBad => false
  | FEmpty => true
  | FOk lv inb => match cls with Some cl => closes_ok lv inb B' sp C (todo U only) cl | None => false end
  end.

(* ---- the tree ---- *)
Inductive ltree :=
  | LLeaf (rf : list (nat * list N)) (cls : option (list lclose))   (* None: the part is empty *)
  | LSplit (i : nat) (c : Q) (le ge : ltree)        (* the part x_i <= c, then x_i >= c *)
  | LRSplit (k : nat) (i : N) (le ge : ltree)       (* entry i of the vector op k reads: <= 0, then >= 0 *)
  | LMSplit (k : nat) (g : N) (parts : lforest)     (* one part per position of group g of op k *)
  | LEach (parts : lforest)                         (* one part per unsafe disjunct *)
  | LEmpty (i : nat)                                (* hi_i < lo_i: the box is empty *)
with lforest := FNil | FCons (t : ltree) (f : lforest).

Fixpoint forest_length (f : lforest) : nat := match f with FNil => O | FCons _ f' => S (forest_length f') end.

Definition group_of (net : LNet) (k : nat) (g : N) : list N :=
  match nth_error (ln_ops net) k with Some (LMax groups) => nth (N.to_nat g) groups [] | _ => [] end.

Definition is_relu (net : LNet) (k : nat) : bool :=
  match nth_error (ln_ops net) k with Some LRelu => true | _ => false end.

Fixpoint check_ltree (net : LNet) (C : list atom) (U : list (list atom)) (B : Box) (sp : list lsplit) (only : option nat)
    (t : ltree) : bool :=
  match t with
  | LLeaf rf cls => check_leaf net C U only B sp rf cls
  | LSplit i c le ge =>
      check_ltree net C U (set_nth i (fun lu => (fst lu, c)) B) sp only le
      && check_ltree net C U (set_nth i (fun lu => (c, snd lu)) B) sp only ge
  | LRSplit k i le ge =>
      is_relu net k && check_ltree net C U B (sp ++ [SR k i false]) only le && check_ltree net C U B (sp ++ [SR k i true]) only ge
  | LMSplit k g parts =>
      let n := length (group_of net k g) in
      negb (Nat.eqb n 0) && Nat.eqb (forest_length parts) n && check_mparts net C U B sp only k g 0 parts
  | LEach parts =>
      match only with
      | None => Nat.eqb (forest_length parts) (length U) && check_each net C U B sp 0 parts
      | Some _ => false
      end
  | LEmpty i => match nth_error B i with Some lu => Qlt_bool (snd lu) (fst lu) | None => false end
  end
with check_mparts (net : LNet) (C : list atom) (U : list (list atom)) (B : Box) (sp : list lsplit) (only : option nat)
    (k : nat) (g : N) (p : nat) (f : lforest) : bool :=
  match f with
  | FNil => true
  | FCons t f' => check_ltree net C U B (sp ++ [SM k g p]) only t && check_mparts net C U B sp only k g (S p) f'
  end
with check_each (net : LNet) (C : list atom) (U : list (list atom)) (B : Box) (sp : list lsplit) (u : nat) (f : lforest) : bool :=
  match f with
  | FNil => true
  | FCons t f' => check_ltree net C U B sp (Some u) t && check_each net C U B sp (S u) f'
  end.

(* ---- the box of an input disjunct, from the atoms the hints name ---- *)
Fixpoint box_implied (C : list atom) (i : nat) (B : Box) (hints : list (N * N)) : bool :=
  match B, hints with
  | [], [] => true
  | lu :: B', (jl, ju) :: hints' =>
      match nth_error C (N.to_nat jl), nth_error C (N.to_nat ju) with
      | Some al, Some au => VnnCheck.gives_lower i (fst lu) al && VnnCheck.gives_upper i (snd lu) au
      | _, _ => false
      end && box_implied C (S i) B' hints'
  | _, _ => false
  end.

Fixpoint check_lsteps (net : LNet) (n : nat) (U : list (list atom)) (R : list (list atom))
    (steps : list (Box * list (N * N) * ltree)) : bool :=
  match R, steps with
  | [], [] => true
  | C :: R', (B, hints, t) :: S' =>
      Nat.eqb (length B) n && box_implied C 0 B hints && check_ltree net C U B [] None t && check_lsteps net n U R' S'
  | _, _ => false
  end.

(* one step per input disjunct, in order: its box, the atoms implying the box, its tree *)
Definition check_layered (net : LNet) (P : Property) (steps : list (Box * list (N * N) * ltree)) : bool :=
  check_lsteps net (p_inputs P) (p_unsafe P) (p_region P) steps.
