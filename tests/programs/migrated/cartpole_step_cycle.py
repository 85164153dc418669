"""The cart-pole rollout, migrated by hand to PyTorch 2.13: ``.item()`` for the
greedy action."""
import gym
import torch
import torch.nn as nn
import torch.nn.functional as F


def prepare(observation):
    return torch.from_numpy(observation).float().unsqueeze(0)


torch.manual_seed(0)
env = gym.make('CartPole-v0')
policy_net = nn.Linear(4, 2)
done = True
steps, episodes = 0, 0
for t in range(40):
    if done:
        state = prepare(env.reset())
        episodes += 1
    policy = F.softmax(policy_net(state), dim=1)
    action = policy.max(1)[1].data[0].item()
    state, reward, done, _ = env.step(action)
    state = prepare(state)
    steps += 1
print('steps %d episodes %d last state %.5f' % (steps, episodes, state.sum()))
