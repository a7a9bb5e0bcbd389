"""A transformer block and a MobileNet block with cuop's ops, eager and under torch.compile,
against the same blocks with torch's ops (the timing table is python/tests/bench_models.py's)."""

import unittest

from support import needs_gpu, relative_error, torch

if torch is not None:
    import blocks


@needs_gpu
class Models(unittest.TestCase):
    def agree(self, block, make_input, dtype, tolerance, **kw):
        reference, ours = blocks.pair(block, dtype, **kw)
        x = make_input(dtype)
        with torch.no_grad():
            expected = reference(x)
            eager = ours(x)
            compiled = torch.compile(ours, fullgraph=True)(x)  # fullgraph: the ops trace, no breaks
        self.assertLess(relative_error(eager, expected), tolerance)
        self.assertLess(relative_error(compiled, expected), tolerance)
        return ours, x

    def test_transformer_block_bf16(self):
        torch._dynamo.reset()
        self.agree(blocks.TransformerBlock, blocks.transformer_input, torch.bfloat16, 2e-2)

    def test_mobilenet_block_f16_channels_last(self):
        torch._dynamo.reset()
        for kernel in (3, 5):
            with self.subTest(kernel=kernel):
                self.agree(blocks.InvertedResidual, blocks.mobilenet_input, torch.float16, 5e-3, kernel=kernel)

    def test_compiled_with_cuda_graphs(self):
        torch._dynamo.reset()
        reference, ours = blocks.pair(blocks.InvertedResidual, torch.float16)
        compiled = torch.compile(ours, mode="reduce-overhead", fullgraph=True)
        with torch.no_grad():
            for _ in range(3):  # recorded, then replayed
                x = blocks.mobilenet_input(torch.float16)
                self.assertLess(relative_error(compiled(x).clone(), reference(x)), 5e-3)

    def test_training_step_through_the_ops(self):
        reference, ours = blocks.pair(blocks.TransformerBlock, torch.bfloat16, dim=256, heads=4, hidden=512)
        x = blocks.transformer_input(torch.bfloat16, batch=2, seq=64, dim=256)
        for model in (reference, ours):
            model.train()
            model(x).float().square().mean().backward()
        for (name, a), b in zip(ours.named_parameters(), reference.parameters()):
            self.assertLess(relative_error(a.grad, b.grad), 5e-2, name)


if __name__ == "__main__":
    unittest.main()
