"""The data module of the pg_trajectories program: steps a batch of environments and returns their trajectory, an object of the storage module's class (a 2017 policy-gradient library's ``obtain_trajectories``)."""
from pg_storage import MultiTrajectory


def obtain_trajectories(step_rewards, steps, n_envs):
    trajectory = MultiTrajectory(n_envs)
    for t in range(steps):
        trajectory.append(step_rewards(t, n_envs))
    trajectory.torchify()
    return trajectory
