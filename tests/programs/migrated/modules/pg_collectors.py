"""Migrated copy of ../../modules/pg_collectors.py: nothing to change (plain Python)."""
from pg_storage import MultiTrajectory


def obtain_trajectories(step_rewards, steps, n_envs):
    trajectory = MultiTrajectory(n_envs)
    for t in range(steps):
        trajectory.append(step_rewards(t, n_envs))
    trajectory.torchify()
    return trajectory
