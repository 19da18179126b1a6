"""A plain Gymnasium loop on a pure-exploration problem: pull arms, then stop with an answer."""

import gymnasium as gym
import numpy as np

import bandit_envs  # noqa: F401  (registers the ids)

env = gym.make("LinearBAI-Soare-v0", budget=600)  # fixed budget: 600 pulls
obs, info = env.reset(seed=0)
spec = info["problem"]  # what the agent may know: features, noise, budget, ...
sums, counts = np.zeros(spec.n_arms), np.zeros(spec.n_arms)

for t in range(spec.budget):  # round robin
    arm = t % spec.n_arms
    obs, reward, terminated, truncated, info = env.step(arm)
    sums[arm] += obs[0]
    counts[arm] += 1

# least-squares estimate of theta, then stop with the set {best arm}
x = spec.features
theta = np.linalg.lstsq(x.T @ (counts[:, None] * x), x.T @ sums, rcond=None)[0]
answer = {int(np.argmax(x @ theta))}
obs, reward, terminated, truncated, info = env.step(env.unwrapped.stop_action(answer))

print(
    f"answer {sorted(info['answer'])}, truth {sorted(info['true_answer'])}, "
    f"correct {info['correct']}, samples {info['samples']}, reward {reward}"
)
print(f"lower bound T*(theta) = {info['complexity']['lower_bound']:.1f}")
