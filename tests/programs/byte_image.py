"""A 2017 data pipeline with torchvision's old ``ToTensor`` copied in: the image's
bytes read through ``torch.ByteStorage.from_buffer`` (a typed storage: 2.13
warns that TypedStorage is deprecated)."""
# needs: TV001 TV003 TV167
# before-error: IndexError: invalid index of a 0-dim tensor
# before-warning: TypedStorage is deprecated
import array

import torch
from torch.autograd import Variable


def to_tensor(pixels, width, height):
    img = torch.ByteTensor(torch.ByteStorage.from_buffer(pixels))
    img = img.view(height, width, 3)
    return img.transpose(0, 1).transpose(0, 2).contiguous().float().div(255)


pixels = array.array('B', [(7 * i + 3) % 256 for i in range(4 * 5 * 3)]).tobytes()
image = Variable(to_tensor(pixels, 5, 4).unsqueeze(0))
conv = torch.nn.Conv2d(3, 2, 3)
torch.manual_seed(0)
conv.reset_parameters()
out = conv(image).mean()
print('mean %.6f first %.6f' % (out.data[0], image.data[0, 0, 0, 1]))
