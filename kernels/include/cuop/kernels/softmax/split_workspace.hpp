// Workspace layout of the split_row family, shared by the device code and launch planning.
// Built-in types only: included by host C++ and by NVRTC alike.
//
//   u32 [0]  epoch: tags of this launch are epoch + 1 + i (i: the group's row iteration), so a
//            zeroed slot (tag 0) never matches
//   u32 [1]  blocks of this launch that have finished (reset by the last one)
//   bytes [split_row_header_bytes, ...)  slots[2][G][SPLITS], 16 bytes each, by row parity
//            (persistent 0: slots[ROWS][SPLITS], each used once per launch with tag epoch + 1):
//            two 64-bit words {f32 max*log2e, u32 tag} and {f32 sum, u32 tag}. A 64-bit store is
//            single-copy atomic, so a reader that sees the tag it expects in a word also sees
//            that word's value: no fence and no counter on the per-row path.
//   persistent 0, after the slots: claims[ROWS][SPLITS], 16 bytes each, of which the second
//            u32 holds the tag of the launch whose owner or helper has taken the slot
//            (split_row.cuh, the fallback). Slots and claims are 16-byte cells from one base,
//            so whatever layout an earlier launch used, the word where a claim now sits held a
//            slot's tag word, a claim or zero: never this launch's tag. (A packed u32 array of
//            claims could sit on an old slot's float.)
//
// Zeroed once when allocated. The last block to finish a launch advances the epoch past every
// tag the launch used, so stale slots never match later tags, whatever G and SPLITS the later
// launch has (tags are 32-bit: they would repeat after 2^32 row iterations on one workspace).
#pragma once

namespace cuop::kernels::softmax {

inline constexpr long long split_row_header_bytes = 256;
inline constexpr long long split_row_slot_bytes = 16;
inline constexpr long long split_row_claim_bytes = 16;

// Total bytes for G groups of SPLITS blocks:
// split_row_header_bytes + 2 * G * SPLITS * split_row_slot_bytes; persistent 0:
// split_row_header_bytes + ROWS * SPLITS * (split_row_slot_bytes + split_row_claim_bytes).

}  // namespace cuop::kernels::softmax
