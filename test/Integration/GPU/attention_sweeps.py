# Part of the Sinter project.
"""The sweeps of the sm_90a attention forms that gpu_cases.py checks: the
shapes each two-stage form runs and the tile configurations across the
forms (data only; gpu_cases.two_stage_case makes the cases)."""

# The shapes the two-stage wgmma forms (pipe; mbar: mbarriers instead of
# the block-wide barrier per tile; pp: warpgroups taking turns at the tensor
# cores) run: args and keywords of attention_case.
TWO_STAGE_SHAPES = {
    # One key tile: no steady state, prologue and epilogue only.
    "one-tile": ((1, 2, 2, 64, 64, 64), {}),
    # Causal with Sq > Skv: blocks whose rows see no key at all.
    "no-keys": ((1, 2, 2, 300, 100, 64), dict(causal=True, lse=True)),
    # Ragged tails, GQA; with 3 warpgroups a partial copy pass.
    "ragged-gqa": ((2, 4, 2, 300, 333, 128), dict(causal=True, lse=True)),
    "square": ((1, 4, 4, 200, 200, 128), {}),
    "long": ((1, 4, 4, 520, 520, 128), {}),
    "mqa": ((1, 2, 1, 257, 190, 64), dict(causal=True, lse=True)),
    "mask-f16": ((1, 2, 2, 129, 129, 64, "f16"),
                 dict(causal=True, mask_shape=[129, 129])),
    "dropout": ((1, 4, 2, 77, 130, 128),
                dict(causal=True, lse=True, dropout_p=0.2)),
    "d256": ((1, 2, 2, 200, 200, 256), dict(causal=True)),
    # Skv % 8 == 0: each lane draws one Philox call per eight keys over a
    # pair of n-tiles and the quad transposes the words
    # (Attention/Dropout.cpp); ragged last key tile (136 = 2*64 + 8);
    # "dropout" above (Skv 130) keeps one call per probability.
    # Even Skv, keys contiguous: the mask read by aligned pairs (bf16:
    # loaded before S is waited on), ragged last key tile; an f32 [Skv]
    # key bias by pairs.
    "mask-pairs": ((2, 2, 2, 129, 130, 64),
                   dict(causal=True, mask_shape=[2, 1, 129, 130],
                        mask_t="bf16")),
    "bias-pairs": ((1, 4, 2, 100, 200, 128), dict(mask_shape=[200])),
    "dropout-groups": ((2, 4, 2, 77, 136, 64),
                       dict(causal=True, lse=True, dropout_p=0.1)),
}
# (form, shape, tiles): register caps, 1-3 warpgroups and both key tile
# widths across the forms.
TWO_STAGE_CASES = [
    ("", "one-tile", "warps=4,bn=64"),
    ("", "no-keys", "warps=4,bn=64"),
    ("", "ragged-gqa", "warps=12,bn=64,maxregs=168"),
    ("", "square", "warps=12,bn=128,maxregs=168"),
    ("", "mqa", "warps=8,bn=128"),
    ("", "mask-f16", "warps=8,bn=64,maxregs=128"),
    ("", "dropout", "warps=4,bn=128"),
    ("", "d256", "warps=8,bn=64"),
    ("mbar,", "one-tile", "warps=4,bn=64"),
    ("mbar,", "no-keys", "warps=8,bn=64"),
    ("mbar,", "ragged-gqa", "warps=12,bn=64,maxregs=168"),
    ("mbar,", "long", "warps=8,bn=128"),
    ("mbar,", "mask-f16", "warps=8,bn=64"),
    ("mbar,", "dropout", "warps=4,bn=128"),
    ("mbar,", "d256", "warps=8,bn=64"),
    ("mbar,pp,", "one-tile", "warps=8,bn=64"),
    ("mbar,pp,", "no-keys", "warps=12,bn=64,maxregs=168"),
    ("mbar,pp,", "ragged-gqa", "warps=8,bn=64"),
    ("mbar,pp,", "long", "warps=12,bn=128,maxregs=168"),
    ("mbar,pp,", "mask-f16", "warps=8,bn=128"),
    ("mbar,pp,", "dropout", "warps=8,bn=64"),
    # Warp-specialized: a producer warpgroup loads through tensor maps.
    ("mbar,ws,", "one-tile", "warps=4,bn=64"),
    ("mbar,ws,", "no-keys", "warps=8,bn=64"),
    ("mbar,pp,ws,", "ragged-gqa", "warps=8,bn=64"),
    ("mbar,ws,", "square", "warps=8,bn=128"),
    ("mbar,pp,ws,", "long", "warps=8,bn=128"),
    ("mbar,ws,", "mqa", "warps=4,bn=128"),
    ("mbar,pp,ws,", "mask-f16", "warps=8,bn=128"),
    ("mbar,ws,", "dropout", "warps=8,bn=128"),
    ("", "dropout-groups", "warps=4,bn=64"),
    ("", "mask-pairs", "warps=4,bn=64"),
    ("mbar,pp,ws,", "mask-pairs", "warps=8,bn=128"),
    ("mbar,ws,tmastore,", "mask-pairs", "warps=12,bn=64"),
    ("mbar,pp,ws,", "bias-pairs", "warps=8,bn=64"),
    ("mbar,pp,ws,", "dropout-groups", "warps=8,bn=128"),
    ("mbar,pp,ws,", "d256", "warps=8,bn=64"),
    # ... and O leaving through shared memory and TMA stores (rows past the
    # sequence clipped by the tensor map).
    ("mbar,ws,tmastore,", "one-tile", "warps=4,bn=64"),
    ("mbar,ws,tmastore,", "no-keys", "warps=8,bn=64"),
    ("mbar,pp,ws,tmastore,", "ragged-gqa", "warps=8,bn=64"),
    ("mbar,pp,ws,tmastore,", "mask-f16", "warps=8,bn=128"),
    ("mbar,ws,tmastore,", "dropout", "warps=8,bn=128"),
    ("mbar,ws,tmastore,", "dropout-groups", "warps=12,bn=64"),
    ("mbar,pp,ws,tmastore,", "d256", "warps=8,bn=64"),
    # ... with three consumer warpgroups (192 query rows, 160 registers).
    ("mbar,ws,", "mqa", "warps=12,bn=128"),
    ("mbar,ws,tmastore,", "one-tile", "warps=12,bn=128"),
    ("mbar,ws,tmastore,", "no-keys", "warps=12,bn=64"),
    ("mbar,pp,ws,", "ragged-gqa", "warps=12,bn=64"),
    ("mbar,pp,ws,tmastore,", "mask-f16", "warps=12,bn=128"),
    ("mbar,ws,", "dropout", "warps=12,bn=64"),
]


PERSISTENT_CASES = [
    ("mbar,ws,persist,", "no-keys", "warps=8,bn=64"),
    ("mbar,pp,ws,persist,", "ragged-gqa", "warps=8,bn=64"),
    ("mbar,pp,ws,persist,", "long", "warps=8,bn=128"),
    ("mbar,pp,ws,persist,", "mask-f16", "warps=8,bn=128"),
    ("mbar,ws,persist,", "dropout", "warps=4,bn=128"),
    ("mbar,pp,ws,persist,", "dropout-groups", "warps=8,bn=128"),
    ("mbar,pp,ws,persist,", "d256", "warps=8,bn=64"),
    ("mbar,ws,persist,tmastore,", "no-keys", "warps=8,bn=64"),
    ("mbar,pp,ws,persist,tmastore,", "ragged-gqa", "warps=8,bn=64"),
    ("mbar,pp,ws,persist,tmastore,", "long", "warps=8,bn=128"),
    ("mbar,pp,ws,persist,tmastore,", "mask-f16", "warps=8,bn=128"),
    ("mbar,pp,ws,persist,tmastore,", "mqa", "warps=12,bn=128"),
]
