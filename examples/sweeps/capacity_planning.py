# %% [markdown]
# # Capacity planning over a week of GPU work
#
# Which NodePool layout is cheapest for the training team's week (`examples/simulate/week.yaml`)
# while every seed keeps the p95 pod wait under 7 minutes? The sweep in `week-capacity.yaml`
# varies the training pool's GPU choice, capacity type and `consolidateAfter` and the inference
# pool's capacity type, over three spot-interruption seeds: 108 simulations of a week.
#
# Run it as a script or cell by cell in Jupyter (the `# %%` markers), from the repository root:
#
#     python examples/sweeps/capacity_planning.py                 # in-process
#     NODECAST_ENGINE=ray python examples/sweeps/capacity_planning.py   # on Ray (local, or RAY_ADDRESS)
#
# Needs `pip install 'nodecast[sweep]' matplotlib` (and `nodecast[ray]` for Ray).

# %%
import os

import nodecast

ENGINE = os.environ.get("NODECAST_ENGINE", "local")
result = nodecast.sweep(spec="examples/sweeps/week-capacity.yaml", engine=ENGINE, address=os.environ.get("RAY_ADDRESS"))
print(result, f"{result.stats['wall_seconds']:.1f} s on {ENGINE}")
df = result.to_pandas()

# %% [markdown]
# One row per simulation. A layout is judged on its worst seed for waiting (p95 pending, pods
# still pending at the end) and on its mean cost.

# %%
LAYOUT = ["training_gpus", "training_capacity", "consolidate_after", "inference_capacity"]
BOUND_S = 7 * 60
layouts = (
    df.groupby(LAYOUT)
    .agg(cost_usd=("cost_usd", "mean"), p95_pending_s=("pending_p95_s", "max"), pending_at_end=("pods_pending_at_end", "max"),
         work_lost_h=("work_lost_s", lambda s: s.mean() / 3600), empty_node_usd=("empty_node_cost_usd", "mean"))
    .reset_index()
    .sort_values("cost_usd")
)
ok = layouts[(layouts.p95_pending_s <= BOUND_S) & (layouts.pending_at_end == 0)]
best = ok.iloc[0]
base = layouts[(layouts.training_gpus == "any") & (layouts.training_capacity == "on-demand")
               & (layouts.consolidate_after == "30m") & (layouts.inference_capacity == "spot")].iloc[0]
print(layouts.head(12).to_string(index=False))
print(f"\ncheapest with p95 pending <= {BOUND_S // 60} min on every seed:")
print(best.to_string())
print(f"\nthe examples as they are: ${base.cost_usd:.2f}/week, p95 pending up to {base.p95_pending_s} s")

# %% [markdown]
# Cost against waiting: every layout, the bound, the choice.

# %%
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

fig, ax = plt.subplots(figsize=(8, 5))
for (training, inference), group in layouts.groupby(["training_capacity", "inference_capacity"]):
    ax.scatter(group.p95_pending_s / 60, group.cost_usd, label=f"training {training}, inference {inference}",
               marker="o" if training == "on-demand" else "^", alpha=0.8)
ax.axvline(BOUND_S / 60, color="grey", linestyle="--", linewidth=1)
ax.annotate(f"cheapest under the bound: ${best.cost_usd:.0f}/week\n({best.training_capacity} training, {best.training_gpus} GPUs, "
            f"consolidateAfter {best.consolidate_after}, {best.inference_capacity} inference)",
            (best.p95_pending_s / 60, best.cost_usd), xytext=(7.5, best.cost_usd + 250), fontsize=8,
            arrowprops={"arrowstyle": "->"})
ax.annotate(f"the examples as they are: ${base.cost_usd:.0f}", (base.p95_pending_s / 60, base.cost_usd),
            xytext=(8.5, base.cost_usd + 150), fontsize=8, arrowprops={"arrowstyle": "->"})
ax.set_xlabel("p95 pod pending time, worst of 3 seeds (minutes)")
ax.set_ylabel("cost of the week, mean of 3 seeds ($)")
ax.set_title(f"{len(df)} simulated weeks: NodePool layouts, cost vs waiting")
ax.legend(fontsize=8, loc="lower center")
fig.tight_layout()
fig.savefig("examples/sweeps/cost-vs-pending.png", dpi=110)
print("saved examples/sweeps/cost-vs-pending.png")
