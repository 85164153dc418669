"""The pipeline migrated by hand: the bytes read with ``torch.frombuffer``."""
import array

import torch


def to_tensor(pixels, width, height):
    img = torch.frombuffer(bytearray(pixels), dtype=torch.uint8)
    img = img.view(height, width, 3)
    return img.transpose(0, 1).transpose(0, 2).contiguous().float().div(255)


pixels = array.array('B', [(7 * i + 3) % 256 for i in range(4 * 5 * 3)]).tobytes()
image = to_tensor(pixels, 5, 4).unsqueeze(0)
conv = torch.nn.Conv2d(3, 2, 3)
torch.manual_seed(0)
conv.reset_parameters()
out = conv(image).mean()
print('mean %.6f first %.6f' % (out.item(), image[0, 0, 0, 1].item()))
