// matvec without the attention input: flag 32 is refused by the launch.
fn attn_fill(lid: u32, k4: u32) {
}
