"""The ops on the GPU against torch: seeded random shapes, layouts, streams, graphs, autograd."""

import random
import unittest

from support import TOLERANCE, cuop, needs_gpu, relative_error, torch

DTYPES = ("float32", "float16", "bfloat16")
SEED = 20261206


def rand(*shape, dtype, scale=1.0):
    return (torch.randn(*shape, device="cuda", dtype=torch.float32) * scale).to(dtype)


@needs_gpu
class Softmax(unittest.TestCase):
    def check(self, x, dim=-1):
        y = cuop.softmax(x, dim)
        expected = torch.softmax(x.float(), dim)
        self.assertEqual(y.dtype, x.dtype)
        error = relative_error(y, expected)
        self.assertLess(error, TOLERANCE[x.dtype], f"{tuple(x.shape)} {x.dtype} dim {dim}: {cuop.which.softmax(x, dim)}")

    def test_random_shapes_every_dtype(self):
        rng = random.Random(SEED)
        cols_pool = [1, 3, 77, 128, 197, 1000, 1500, 4096, 4097, 32000, 100003]
        for _ in range(24):
            rows, cols = rng.choice([1, 7, 64, 513, 4096]), rng.choice(cols_pool)
            for name in DTYPES:
                with self.subTest(rows=rows, cols=cols, dtype=name):
                    self.check(rand(rows, cols, dtype=getattr(torch, name), scale=4.0))

    def test_other_dimensions_slices_and_padding(self):
        x = rand(6, 130, 40, dtype=torch.float16)
        for dim in (0, 1, -1):
            self.check(x, dim)
        self.check(x[:, 1:129, :])  # rows a stride apart that is not cols
        self.check(rand(5, 1001, dtype=torch.bfloat16)[:, 1:])  # off the vector alignment
        self.check(rand(7, dtype=torch.float32).expand(3, 7))  # rows of stride 0: copied
        self.check(rand((), dtype=torch.float32))
        self.assertEqual(cuop.softmax(rand(0, 5, dtype=torch.float16)).shape, (0, 5))

    def test_extreme_values(self):
        x = torch.full((4, 300), -float("inf"), device="cuda")
        x[:, 7] = 0.0
        torch.testing.assert_close(cuop.softmax(x), torch.softmax(x, -1))


@needs_gpu
class Linear(unittest.TestCase):
    def check(self, x, w, bias=None):
        y = cuop.linear(x, w, bias)
        expected = torch.nn.functional.linear(x.float(), w.float(), None if bias is None else bias.float())
        self.assertEqual(y.shape, expected.shape)
        error = relative_error(y, expected)
        self.assertLess(error, TOLERANCE[x.dtype], f"x {tuple(x.shape)} w {tuple(w.shape)}: {cuop.which.linear(x, w)}")

    def test_random_shapes(self):
        rng = random.Random(SEED)
        for _ in range(20):
            m = rng.choice([1, 2, 16, 77, 128, 1000, 2048])
            n, k = rng.choice([64, 96, 1000, 4096, 11008]), rng.choice([64, 128, 1000, 4096])
            dtype = rng.choice([torch.float16, torch.bfloat16])
            with self.subTest(m=m, n=n, k=k, dtype=dtype):
                self.check(rand(m, k, dtype=dtype), rand(n, k, dtype=dtype, scale=0.05))

    def test_batched_input_bias_and_weight_layouts(self):
        x, w, b = rand(2, 33, 256, dtype=torch.bfloat16), rand(96, 256, dtype=torch.bfloat16), rand(96, dtype=torch.bfloat16)
        self.check(x, w, b)
        self.check(x, rand(256, 96, dtype=torch.bfloat16).t())  # a transposed k x n matrix: row layout
        self.check(x[:, :, :200], w[:, :200])  # leading dimensions past k
        self.check(rand(256, dtype=torch.float16), rand(40, 256, dtype=torch.float16))
        self.assertEqual(cuop.linear(rand(3, 0, dtype=torch.float16), rand(5, 0, dtype=torch.float16)).abs().sum(), 0)


@needs_gpu
class Conv2d(unittest.TestCase):
    def check(self, x, w, bias=None, **kw):
        y = cuop.conv2d(x, w, bias, **kw)
        expected = torch.nn.functional.conv2d(x.float(), w.float(), None if bias is None else bias.float(), **kw)
        self.assertEqual(y.shape, expected.shape)
        error = relative_error(y, expected)
        self.assertLess(error, TOLERANCE[x.dtype] * 2, f"x {tuple(x.shape)} w {tuple(w.shape)} {kw}")

    def test_depthwise_and_dense_random_shapes(self):
        torch.backends.cudnn.allow_tf32 = False
        rng = random.Random(SEED)
        for _ in range(12):
            n, c, hw = rng.choice([1, 4, 16]), rng.choice([32, 96, 256]), rng.choice([7, 14, 28, 56])
            r = rng.choice([3, 5, 7])
            stride = rng.choice([1, 1, 2])
            depthwise = rng.random() < 0.6
            dtype = rng.choice([torch.float16, torch.bfloat16, torch.float32])
            x = rand(n, c, hw, hw, dtype=dtype).contiguous(memory_format=rng.choice([torch.channels_last, torch.contiguous_format]))
            w = rand(c, 1 if depthwise else c, r, r, dtype=dtype, scale=0.2)
            with self.subTest(n=n, c=c, hw=hw, r=r, stride=stride, depthwise=depthwise, dtype=dtype):
                self.check(x, w, stride=stride, padding=r // 2, groups=c if depthwise else 1)

    def test_bias_dilation_groups_and_odd_geometry(self):
        x = rand(2, 12, 19, 23, dtype=torch.float16).contiguous(memory_format=torch.channels_last)
        self.check(x, rand(24, 3, 3, 3, dtype=torch.float16), rand(24, dtype=torch.float16), padding=2, dilation=2, groups=4)
        self.check(x, rand(8, 12, 1, 1, dtype=torch.float16), stride=(2, 1))
        self.check(x.contiguous(), rand(12, 1, 5, 5, dtype=torch.float16), padding="same", groups=12)


@needs_gpu
class Norms(unittest.TestCase):
    def check(self, got, expected, dtype, what):
        self.assertEqual(got.dtype, dtype)
        self.assertLess(relative_error(got, expected), TOLERANCE[dtype], what)

    def test_random_shapes_every_dtype(self):
        rng = random.Random(SEED + 1)
        cols_pool = [1, 3, 64, 77, 768, 1000, 4096, 4097, 5120, 16384, 100003]
        for _ in range(16):
            rows, cols = rng.choice([1, 7, 64, 513, 4096]), rng.choice(cols_pool)
            for name in DTYPES:
                t = getattr(torch, name)
                x, w, b = rand(rows, cols, dtype=t, scale=3.0), rand(cols, dtype=t), rand(cols, dtype=t)
                with self.subTest(rows=rows, cols=cols, dtype=name):
                    xf, wf, bf = x.float(), w.float(), b.float()
                    self.check(cuop.layer_norm(x, cols, w, b), torch.nn.functional.layer_norm(xf, [cols], wf, bf, 1e-5), t,
                               cuop.which.layer_norm(x, cols))
                    self.check(cuop.rms_norm(x, cols, w, 1e-6), torch.nn.functional.rms_norm(xf, [cols], wf, 1e-6), t,
                               cuop.which.rms_norm(x, cols))
                    residual = rand(rows, cols, dtype=t)
                    summed = residual + x  # rounded to t, as the fused op writes it back
                    y = cuop.add_rms_norm(x, residual, cols, w, 1e-6)
                    torch.testing.assert_close(residual, summed, rtol=0, atol=0)
                    self.check(y, torch.nn.functional.rms_norm(summed.float(), [cols], wf, 1e-6), t,
                               cuop.which.rms_norm(x, cols, residual=True))

    def test_batched_slices_and_default_eps(self):
        x = rand(4, 9, 130, dtype=torch.bfloat16)
        self.check(cuop.layer_norm(x, [9, 130]), torch.nn.functional.layer_norm(x.float(), [9, 130]), x.dtype, "2-d shape")
        sliced = rand(6, 1001, dtype=torch.float16)[:, 1:]  # rows a stride apart, off the vector alignment
        self.check(cuop.rms_norm(sliced, 1000), torch.nn.functional.rms_norm(sliced.float(), [1000], eps=torch.finfo(
            torch.float16).eps), sliced.dtype, "slice, default eps")
        self.assertEqual(cuop.layer_norm(rand(0, 5, dtype=torch.float16), 5).shape, (0, 5))

    def test_group_norm_layouts_silu_every_dtype(self):
        F = torch.nn.functional
        for n, c, h, w, g in [(2, 64, 16, 16, 32), (1, 320, 9, 7, 32), (3, 6, 5, 5, 3), (2, 40, 1, 1, 8)]:
            for name in DTYPES:
                t = getattr(torch, name)
                x, wt, b = rand(n, c, h, w, dtype=t, scale=3.0), rand(c, dtype=t), rand(c, dtype=t)
                for channels_last in (False, True):
                    xl = x.contiguous(memory_format=torch.channels_last) if channels_last else x
                    for silu in (False, True):
                        with self.subTest(shape=(n, c, h, w, g), dtype=name, channels_last=channels_last, silu=silu):
                            expected = F.group_norm(x.float(), g, wt.float(), b.float(), 1e-5)
                            expected = F.silu(expected) if silu else expected
                            got = cuop.group_norm(xl, g, wt, b, 1e-5, silu=silu)
                            self.check(got, expected, t, cuop.which.group_norm(xl, g, silu))
        x = rand(2, 8, 100, dtype=torch.float16)  # (N, C, L)
        self.check(cuop.group_norm(x, 4), F.group_norm(x.float(), 4), x.dtype, "(N, C, L), no parameters")

    def test_backward_is_an_error(self):
        x = rand(4, 64, dtype=torch.float32).requires_grad_()
        with self.assertRaisesRegex(RuntimeError, "not implemented"):
            cuop.rms_norm(x, 64).sum().backward()
        with self.assertRaisesRegex(RuntimeError, "not implemented"):
            cuop.group_norm(rand(2, 8, 4, 4, dtype=torch.float32).requires_grad_(), 4).sum().backward()


@needs_gpu
class StreamsGraphsAutograd(unittest.TestCase):
    def calls(self):
        x2 = rand(64, 1000, dtype=torch.float16)
        w = rand(512, 1000, dtype=torch.float16, scale=0.05)
        xc = rand(8, 64, 28, 28, dtype=torch.float16).contiguous(memory_format=torch.channels_last)
        wc = rand(64, 1, 3, 3, dtype=torch.float16)
        return [
            (lambda x: cuop.softmax(x), lambda x: torch.softmax(x.float(), -1), x2),
            (lambda x: cuop.linear(x, w), lambda x: x.float() @ w.float().t(), x2),
            (lambda x: cuop.conv2d(x, wc, padding=1, groups=64),
             lambda x: torch.nn.functional.conv2d(x.float(), wc.float(), padding=1, groups=64), xc),
        ]

    def test_work_goes_on_the_current_stream(self):
        side = torch.cuda.Stream()
        for op, reference, x in self.calls():
            source = x.clone()
            x.zero_()
            torch.cuda.synchronize()
            with torch.cuda.stream(side):
                torch.cuda._sleep(20_000_000)  # the copy lands late: an op on another stream reads zeros
                x.copy_(source)
                y = op(x)
            side.synchronize()
            self.assertLess(relative_error(y, reference(source)), 2e-3)

    def test_cuda_graph_capture_and_replay(self):
        for op, reference, x in self.calls():
            side = torch.cuda.Stream()
            side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(side):
                op(x)  # warm up outside the capture, as torch recommends
            torch.cuda.current_stream().wait_stream(side)
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph):
                y = op(x)
            x.copy_(torch.randn_like(x))
            graph.replay()
            torch.cuda.synchronize()
            self.assertLess(relative_error(y, reference(x)), 2e-3)

    def test_opcheck(self):
        x2 = rand(16, 64, dtype=torch.float16)
        xc = rand(2, 8, 10, 10, dtype=torch.float16).contiguous(memory_format=torch.channels_last)
        cases = [
            (torch.ops.cuop.softmax.default, (rand(16, 77, dtype=torch.float32), -1)),
            (torch.ops.cuop.linear.default, (x2, rand(32, 64, dtype=torch.float16), rand(32, dtype=torch.float16))),
            (torch.ops.cuop.conv2d.default, (xc, rand(8, 1, 3, 3, dtype=torch.float16), None, [1, 1], [1, 1], [1, 1], 8)),
            (torch.ops.cuop.layer_norm.default, (x2, [64], rand(64, dtype=torch.float16), None, 1e-5)),
            (torch.ops.cuop.rms_norm.default, (x2, [64], None, 1e-6)),
            (torch.ops.cuop.add_rms_norm.default, (x2, rand(16, 64, dtype=torch.float16), [64], None, 1e-6)),
            (torch.ops.cuop.group_norm.default, (xc, 4, rand(8, dtype=torch.float16), None, 1e-5, True)),
        ]
        for op, args in cases:
            with self.subTest(op=str(op)):
                torch.library.opcheck(op, args, test_utils=("test_schema", "test_faketensor", "test_aot_dispatch_dynamic"))

    def test_backward_matches_torch(self):
        x = rand(8, 50, dtype=torch.float32).requires_grad_()
        g = torch.randn(8, 50, device="cuda")
        (a,) = torch.autograd.grad(cuop.softmax(x), x, g)
        (b,) = torch.autograd.grad(torch.softmax(x, -1), x, g)
        self.assertLess(relative_error(a, b), 1e-5)
        xl = rand(4, 6, 64, dtype=torch.bfloat16).requires_grad_()
        wl, bl = rand(32, 64, dtype=torch.bfloat16).requires_grad_(), rand(32, dtype=torch.bfloat16).requires_grad_()
        gl = rand(4, 6, 32, dtype=torch.bfloat16)
        ours = torch.autograd.grad(cuop.linear(xl, wl, bl), (xl, wl, bl), gl)
        theirs = torch.autograd.grad(torch.nn.functional.linear(xl, wl, bl), (xl, wl, bl), gl)
        for a, b in zip(ours, theirs):
            self.assertLess(relative_error(a, b), 2e-2)
        xc = rand(2, 8, 12, 12, dtype=torch.float16).contiguous(memory_format=torch.channels_last).requires_grad_()
        wc, bc = rand(8, 1, 3, 3, dtype=torch.float16).requires_grad_(), rand(8, dtype=torch.float16).requires_grad_()
        gc = rand(2, 8, 12, 12, dtype=torch.float16)
        ours = torch.autograd.grad(cuop.conv2d(xc, wc, bc, padding=1, groups=8), (xc, wc, bc), gc)
        theirs = torch.autograd.grad(torch.nn.functional.conv2d(xc, wc, bc, padding=1, groups=8), (xc, wc, bc), gc)
        for a, b in zip(ours, theirs):
            self.assertLess(relative_error(a, b), 5e-3)

    def test_which_names_a_choice(self):
        x = rand(64, 1000, dtype=torch.float16)
        self.assertIn("softmax_f16", cuop.which.softmax(x))
        self.assertRegex(cuop.which.linear(x, rand(512, 1000, dtype=torch.float16)), r"gemm_f16.*\[(kernel|cublaslt)")


if __name__ == "__main__":
    unittest.main()
