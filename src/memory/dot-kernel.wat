;; memrl's dot-product kernel (WebAssembly SIMD), source of dot-kernel-wasm.ts.
;; Rebuild the embedded bytes after editing: npm run build && node dist/scripts/build-wasm.js
;;
;; dots(q, m, n, dim, out): out[i] = row_i · q, in float32, for the n rows at byte offset
;; m of a row-major matrix of bfloat16 values (the top 16 bits of a float32) against the
;; float32 query at q. Reading 2 bytes a value instead of 4 is what makes it fast: the
;; scan is bound by memory bandwidth. 16 values a step into 16 lanes of partial sums,
;; then a scalar tail. Offsets are bytes; q and out must be 16-byte aligned.
(module
  (memory (export "memory") 1 65536)
  (func (export "dots") (param $q i32) (param $m i32) (param $n i32) (param $dim i32) (param $out i32)
    (local $i i32) (local $row i32) (local $p i32) (local $qp i32) (local $end i32) (local $end16 i32)
    (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128) (local $v v128) (local $w v128) (local $s f32)
    (local.set $row (local.get $m))
    (block $rows_done
      (loop $rows
        (br_if $rows_done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $a0 (v128.const i32x4 0 0 0 0))
        (local.set $a1 (v128.const i32x4 0 0 0 0))
        (local.set $a2 (v128.const i32x4 0 0 0 0))
        (local.set $a3 (v128.const i32x4 0 0 0 0))
        (local.set $p (local.get $row))
        (local.set $qp (local.get $q))
        (local.set $end (i32.add (local.get $row) (i32.shl (local.get $dim) (i32.const 1))))
        (local.set $end16 (i32.add (local.get $row) (i32.shl (i32.and (local.get $dim) (i32.const -16)) (i32.const 1))))
        (block $d16
          (loop $l16
            (br_if $d16 (i32.ge_u (local.get $p) (local.get $end16)))
            ;; 16 bfloat16 values; widening each to 32 bits and shifting it up makes it a float32
            (local.set $v (v128.load align=2 (local.get $p)))
            (local.set $w (v128.load offset=16 align=2 (local.get $p)))
            (local.set $a0 (f32x4.add (local.get $a0) (f32x4.mul (i32x4.shl (i32x4.extend_low_i16x8_u (local.get $v)) (i32.const 16)) (v128.load (local.get $qp)))))
            (local.set $a1 (f32x4.add (local.get $a1) (f32x4.mul (i32x4.shl (i32x4.extend_high_i16x8_u (local.get $v)) (i32.const 16)) (v128.load offset=16 (local.get $qp)))))
            (local.set $a2 (f32x4.add (local.get $a2) (f32x4.mul (i32x4.shl (i32x4.extend_low_i16x8_u (local.get $w)) (i32.const 16)) (v128.load offset=32 (local.get $qp)))))
            (local.set $a3 (f32x4.add (local.get $a3) (f32x4.mul (i32x4.shl (i32x4.extend_high_i16x8_u (local.get $w)) (i32.const 16)) (v128.load offset=48 (local.get $qp)))))
            (local.set $p (i32.add (local.get $p) (i32.const 32)))
            (local.set $qp (i32.add (local.get $qp) (i32.const 64)))
            (br $l16)))
        (local.set $a0 (f32x4.add (f32x4.add (local.get $a0) (local.get $a1)) (f32x4.add (local.get $a2) (local.get $a3))))
        (local.set $s
          (f32.add
            (f32.add (f32x4.extract_lane 0 (local.get $a0)) (f32x4.extract_lane 1 (local.get $a0)))
            (f32.add (f32x4.extract_lane 2 (local.get $a0)) (f32x4.extract_lane 3 (local.get $a0)))))
        ;; the last dim % 16 values
        (block $d1
          (loop $l1
            (br_if $d1 (i32.ge_u (local.get $p) (local.get $end)))
            (local.set $s (f32.add (local.get $s)
              (f32.mul (f32.reinterpret_i32 (i32.shl (i32.load16_u (local.get $p)) (i32.const 16))) (f32.load (local.get $qp)))))
            (local.set $p (i32.add (local.get $p) (i32.const 2)))
            (local.set $qp (i32.add (local.get $qp) (i32.const 4)))
            (br $l1)))
        (f32.store (i32.add (local.get $out) (i32.shl (local.get $i) (i32.const 2))) (local.get $s))
        (local.set $row (local.get $end))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $rows)))))
