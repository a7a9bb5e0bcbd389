"""The ops' fake implementations, checks and registration, with no GPU: meta tensors and tracing."""

import unittest

from support import cuop, needs_torch, torch


def meta(*shape, dtype=None, channels_last=False):
    t = torch.empty(shape, device="meta", dtype=dtype or torch.float16)
    return t.contiguous(memory_format=torch.channels_last) if channels_last else t


@needs_torch
class FakeShapes(unittest.TestCase):
    def test_softmax_keeps_shape_and_runs_the_last_dimension_dense(self):
        x = meta(4, 8, 16)
        self.assertEqual(cuop.softmax(x).shape, x.shape)
        self.assertTrue(cuop.softmax(x).is_contiguous())
        moved = cuop.softmax(x, 1)  # the kernels' rows are dimension 1: dense along it
        self.assertEqual(moved.shape, x.shape)
        self.assertEqual(moved.stride(1), 1)
        self.assertEqual(cuop.softmax(meta(dtype=torch.float32)).shape, torch.Size([]))

    def test_linear_shape_matches_torch(self):
        for shape in [(16,), (3, 16), (2, 5, 16)]:
            x, w = meta(*shape), meta(32, 16)
            self.assertEqual(cuop.linear(x, w, meta(32)).shape, torch.nn.functional.linear(x, w).shape)

    def test_conv2d_shape_matches_torch_and_keeps_channels_last(self):
        cases = [  # x, weight, stride, padding, dilation, groups
            ((2, 8, 14, 14), (8, 1, 3, 3), 1, 1, 1, 8),
            ((1, 16, 15, 17), (32, 16, 5, 3), (2, 1), (2, 0), 1, 1),
            ((3, 12, 20, 20), (24, 3, 3, 3), 2, 2, 2, 4),
        ]
        for xs, ws, stride, padding, dilation, groups in cases:
            for channels_last in (False, True):
                x = meta(*xs, channels_last=channels_last)
                y = cuop.conv2d(x, meta(*ws), None, stride, padding, dilation, groups)
                ref = torch.nn.functional.conv2d(x, meta(*ws), None, stride, padding, dilation, groups)
                self.assertEqual(y.shape, ref.shape)
                self.assertEqual(y.is_contiguous(memory_format=torch.channels_last), channels_last)

    def test_norms_keep_shape_contiguous(self):
        x = meta(3, 5, 64)
        w, b = meta(64), meta(64)
        for y in (cuop.layer_norm(x, 64, w, b), cuop.rms_norm(x, [64], w), cuop.add_rms_norm(x, meta(3, 5, 64), 64, w),
                  cuop.layer_norm(x, [5, 64])):
            self.assertEqual(y.shape, x.shape)
            self.assertTrue(y.is_contiguous())

    def test_group_norm_keeps_shape_and_memory_format(self):
        for channels_last in (False, True):
            x = meta(2, 64, 8, 8, channels_last=channels_last)
            for silu in (False, True):
                y = cuop.group_norm(x, 32, meta(64), meta(64), silu=silu)
                self.assertEqual(y.shape, x.shape)
                self.assertEqual(y.is_contiguous(memory_format=torch.channels_last), channels_last)
        self.assertTrue(cuop.group_norm(meta(2, 6, 5), 3).is_contiguous())  # (N, C, L)

    def test_padding_same_and_valid(self):
        x, w = meta(1, 4, 9, 9), meta(4, 4, 3, 5)
        self.assertEqual(cuop.conv2d(x, w, padding="same").shape, (1, 4, 9, 9))
        self.assertEqual(cuop.conv2d(x, w, padding="valid").shape, (1, 4, 7, 5))
        with self.assertRaisesRegex(ValueError, "uneven padding"):
            cuop.conv2d(x, meta(4, 4, 2, 2), padding="same")


@needs_torch
class FakeChecks(unittest.TestCase):
    def test_dtypes_are_refused_by_name(self):
        with self.assertRaisesRegex(TypeError, "cuop.softmax: x is torch.int32"):
            cuop.softmax(meta(3, dtype=torch.int32))
        with self.assertRaisesRegex(TypeError, "cuop.linear: x is torch.float32"):
            cuop.linear(meta(2, 4, dtype=torch.float32), meta(3, 4, dtype=torch.float32))
        with self.assertRaisesRegex(RuntimeError, "weight is torch.bfloat16"):
            cuop.linear(meta(2, 4), meta(3, 4, dtype=torch.bfloat16))

    def test_shapes_that_do_not_fit_are_refused(self):
        with self.assertRaisesRegex(RuntimeError, "last dimension is 5, weight's in_features 4"):
            cuop.linear(meta(2, 5), meta(3, 4))
        with self.assertRaisesRegex(RuntimeError, "in 3 groups"):
            cuop.conv2d(meta(1, 8, 8, 8), meta(8, 2, 3, 3), groups=3)
        with self.assertRaisesRegex(RuntimeError, "does not fit"):
            cuop.conv2d(meta(1, 4, 2, 2), meta(4, 4, 5, 5))
        with self.assertRaisesRegex(RuntimeError, "out of range"):
            cuop.softmax(meta(2, 3), 2)
        with self.assertRaisesRegex(RuntimeError, "does not end with normalized_shape"):
            cuop.layer_norm(meta(2, 3), [4])
        with self.assertRaisesRegex(RuntimeError, "weight shape"):
            cuop.rms_norm(meta(2, 4), [4], meta(5))
        with self.assertRaisesRegex(RuntimeError, "residual shape"):
            cuop.add_rms_norm(meta(2, 4), meta(3, 4), [4])
        with self.assertRaisesRegex(RuntimeError, "64 channels do not divide into num_groups 30"):
            cuop.group_norm(meta(2, 64, 4, 4), 30)
        with self.assertRaisesRegex(RuntimeError, "weight shape"):
            cuop.group_norm(meta(2, 64, 4, 4), 32, meta(32))

    def test_cpu_tensors_get_the_ops_own_error(self):
        with self.assertRaisesRegex(RuntimeError, "cuop.softmax: x must be a CUDA tensor"):
            cuop.softmax(torch.ones(3))


@needs_torch
class Tracing(unittest.TestCase):
    def test_make_fx_traces_the_ops_with_fake_tensors(self):
        from torch.fx.experimental.proxy_tensor import make_fx

        def block(x, w, k):
            y = cuop.softmax(cuop.linear(x, w), -1)
            return cuop.conv2d(y.reshape(1, 4, 4, 8), k, padding=1, groups=4)

        graph = make_fx(block, tracing_mode="fake")(meta(16, 16), meta(8, 16), meta(4, 1, 3, 3)).graph
        targets = [str(n.target) for n in graph.nodes if n.op == "call_function"]
        self.assertIn("cuop.linear.default", targets)
        self.assertIn("cuop.softmax.default", targets)
        self.assertIn("cuop.conv2d.default", targets)

    def test_symbolic_shapes(self):
        from torch.fx.experimental.proxy_tensor import make_fx

        graph = make_fx(lambda x, w: cuop.linear(x, w), tracing_mode="symbolic")(meta(5, 16), meta(8, 16))
        self.assertTrue(any("cuop.linear" in str(n.target) for n in graph.graph.nodes))

    def test_every_op_is_registered_with_a_fake(self):
        for name in ("softmax", "linear", "conv2d", "layer_norm", "rms_norm", "add_rms_norm", "group_norm"):
            op = getattr(torch.ops.cuop, name).default
            self.assertTrue(torch._C._dispatch_has_kernel_for_dispatch_key(op.name(), "Meta"), name)
            self.assertTrue(torch._C._dispatch_has_kernel_for_dispatch_key(op.name(), "CUDA"), name)


@needs_torch
class Autograd(unittest.TestCase):
    """The C++ autograd (csrc/autograd.cpp) on meta tensors: gradients of every input, their shapes."""

    def test_gradients_reach_every_input(self):
        x = meta(2, 5, 16).requires_grad_()
        w, b = meta(8, 16).requires_grad_(), meta(8).requires_grad_()
        k = meta(8, 1, 3, 3).requires_grad_()
        y = cuop.softmax(cuop.linear(x, w, b), -1).reshape(2, 8, 5, 1)
        z = cuop.conv2d(y.expand(2, 8, 5, 5), k, padding=1, groups=8)
        z.sum().backward()
        for t in (x, w, b, k):
            self.assertEqual(t.grad.shape, t.shape)

    def test_aot_autograd_traces_forward_and_backward(self):
        from functorch.compile import aot_function

        graphs = []

        def keep(gm, _):
            graphs.append(gm)
            return gm

        def block(x, w, k):
            y = cuop.softmax(cuop.linear(x, w), -1).reshape(1, 4, 4, 2)
            return cuop.conv2d(y, k, padding=1, groups=4).sum()

        aot_function(block, fw_compiler=keep, bw_compiler=keep)(
            meta(4, 16).requires_grad_(), meta(8, 16).requires_grad_(), meta(4, 1, 3, 3).requires_grad_()
        ).backward()
        forward, backward = ({str(n.target) for n in g.graph.nodes} for g in graphs)
        self.assertTrue({"cuop.linear.default", "cuop.softmax.default", "cuop.conv2d.default"} <= forward)
        self.assertTrue({"aten.convolution_backward.default", "aten._softmax_backward_data.default"} <= backward)

    def test_no_grad_needs_no_graph(self):
        x = meta(3, 4).requires_grad_()
        with torch.no_grad():
            self.assertIsNone(cuop.softmax(x).grad_fn)
        self.assertIsNotNone(cuop.softmax(x).grad_fn)


@needs_torch
class Modules(unittest.TestCase):
    def test_convert_swaps_exact_classes_and_keeps_parameters(self):
        class Custom(torch.nn.Linear):
            pass

        model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.Conv2d(2, 2, 3), torch.nn.Softmax(dim=-1),
                                    torch.nn.Softmax(), Custom(4, 4), torch.nn.Conv2d(2, 2, 3, padding_mode="reflect"))
        weight = model[0].weight
        cuop.nn.convert(model)
        self.assertIs(type(model[0]), cuop.nn.Linear)
        self.assertIs(model[0].weight, weight)
        self.assertIs(type(model[1]), cuop.nn.Conv2d)
        self.assertIs(type(model[2]), cuop.nn.Softmax)
        self.assertIs(type(model[3]), torch.nn.Softmax)  # dim=None: torch's legacy choice of dim
        self.assertIs(type(model[4]), Custom)
        self.assertIs(type(model[5]), torch.nn.Conv2d)


if __name__ == "__main__":
    unittest.main()
