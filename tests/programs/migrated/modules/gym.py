"""A stand-in for the parts of gym (0.9) a 2017 control script uses: ``gym.make``
of a pendulum whose observations are numpy arrays (a ``Box`` space)."""
import math

import numpy as np


class Box(object):
    def __init__(self, low, high, shape):
        self.low, self.high, self.shape = low, high, shape


class Pendulum(object):
    def __init__(self):
        self.observation_space = Box(-8.0, 8.0, (3,))
        self.action_space = Box(-2.0, 2.0, (1,))
        self.rng = np.random.RandomState(0)
        self.theta = self.speed = 0.0

    def _observation(self):
        return np.array([math.cos(self.theta), math.sin(self.theta), self.speed])

    def reset(self):
        self.theta = self.rng.uniform(-math.pi, math.pi)
        self.speed = self.rng.uniform(-1.0, 1.0)
        return self._observation()

    def step(self, action):
        torque = float(np.clip(action, -2.0, 2.0)[0])
        cost = self.theta ** 2 + 0.1 * self.speed ** 2 + 0.001 * torque ** 2
        self.speed = float(np.clip(self.speed + (3 * math.sin(self.theta) + 3 * torque) * 0.05,
                                   -8.0, 8.0))
        self.theta += self.speed * 0.05
        return self._observation(), -cost, False, {}


def make(name):
    assert name == "Pendulum-v0", name
    return Pendulum()
