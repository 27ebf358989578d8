# Part of the Sinter project.
"""The loss curves of a bench/train_gpt2.py run (its --json), one line per
run (eager, sinter, inductor), as a PNG:

    python3 bench/plot_train_losses.py bench/results/train_gpt2_bf16.json \\
        bench/results/train_gpt2_bf16_losses.png

Needs matplotlib. The upper panel is the loss per step; the lower one each
run's difference from eager, which shows where the runs part (the same
step on the same data in bf16 agrees to ~1e-3 at first; later the runs
drift apart chaotically, as any two bf16 implementations do).
"""

import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(src, dst):
    r = json.load(open(src))
    runs = r["runs"]
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(8, 7), sharex=True,
                                      gridspec_kw={"height_ratios": [2, 1]})
    # One color per run in both panels.
    color = {label: "C%d" % i for i, label in enumerate(runs)}
    for label, run in runs.items():
        ms = run["ms_per_step"]
        top.plot(run["losses"], label="%s (%.1f ms/step)" % (label, ms),
                 linewidth=1, color=color[label])
    base = runs.get("eager", {}).get("losses")
    if base:
        for label, run in runs.items():
            if label != "eager":
                bottom.plot([a - b for a, b in zip(run["losses"], base)],
                            label=label + " - eager", linewidth=1,
                            color=color[label])
        bottom.axhline(0, color="gray", linewidth=0.5)
        bottom.set_ylabel("loss - eager")
        bottom.legend()
    top.set_ylabel("loss")
    top.set_title("GPT-2 124M, B%d T%d, %s, %s,\n%s (%s)" % (
        r["batch"], r["seq"], r["dtype"], r["gpu"], "torch " + r["torch"],
        r["date"]))
    top.legend()
    bottom.set_xlabel("step (synthetic tokens, 4 batches in turn)")
    fig.tight_layout()
    fig.savefig(dst, dpi=110)
    print("wrote", dst)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
