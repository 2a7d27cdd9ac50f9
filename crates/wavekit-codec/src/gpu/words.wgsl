// The subgroup block coders' word helpers (block_encode_sg.wgsl, block_sg.wgsl), with their CPU
// twins in `gpu/sim.rs` (`prefix_parity`, `deposit`, `compress`, `transpose`): a row of a block
// is a lane's, and its 32 samples' bits are handled a word at a time.

// Bit i of the result: the parity of x's bits 0 ..= i (deposit's and compress's moves).
fn prefix_parity(x: u32) -> u32 {
    var p = x ^ (x << 1u);
    p ^= p << 2u;
    p ^= p << 4u;
    p ^= p << 8u;
    p ^= p << 16u;
    return p;
}

// x's low bits deposited, lowest first, at the set bits of m, lowest first (Hacker's
// Delight's expand: five constant steps, no loop over the bits).
fn deposit(x0: u32, m0: u32) -> u32 {
    var x = x0;
    var m = m0;
    var mk = ~m << 1u;
    var mv: array<u32, 5>;
#unroll i 5
    {
        let mp = prefix_parity(mk);
        let v = mp & m;
        mv[{i}] = v;
        m = (m ^ v) | (v >> (1u << {i}));
        mk &= ~mp;
    }
#end
#unroll j 5
    {
        let v = mv[4u - {j}];
        x = (x & ~v) | ((x << (1u << (4u - {j}))) & v);
    }
#end
    return x & m0;
}

// The bits of x at the set bits of m, packed from bit 0 up in their order (Hacker's Delight's
// compress: five constant steps, no loop over the bits; deposit's inverse).
fn compress(x0: u32, m0: u32) -> u32 {
    var x = x0 & m0;
    var m = m0;
    var mk = ~m << 1u;
#unroll i 5
    {
        let mp = prefix_parity(mk);
        let v = mp & m;
        m = (m ^ v) | (v >> (1u << {i}));
        let t = x & v;
        x = (x ^ t) | (t >> (1u << {i}));
        mk &= ~mp;
    }
#end
    return x;
}

// The 32 × 32 bit matrix x (bit c of x[r] its element (r, c)) transposed: bit r of the result's
// word c is bit c of x[r]. Five stages of block swaps, every index a constant (registers).
fn transpose(x0: array<u32, 32>) -> array<u32, 32> {
    var x = x0;
#unroll i 16
    {
        let t = ((x[{i}] >> 16u) ^ x[{i} + 16u]) & 0x0000ffffu;
        x[{i} + 16u] ^= t;
        x[{i}] ^= t << 16u;
    }
#end
#unroll i 16
    {
        let t = ((x[({i} / 8u) * 16u + {i} % 8u] >> 8u) ^ x[({i} / 8u) * 16u + {i} % 8u + 8u]) & 0x00ff00ffu;
        x[({i} / 8u) * 16u + {i} % 8u + 8u] ^= t;
        x[({i} / 8u) * 16u + {i} % 8u] ^= t << 8u;
    }
#end
#unroll i 16
    {
        let t = ((x[({i} / 4u) * 8u + {i} % 4u] >> 4u) ^ x[({i} / 4u) * 8u + {i} % 4u + 4u]) & 0x0f0f0f0fu;
        x[({i} / 4u) * 8u + {i} % 4u + 4u] ^= t;
        x[({i} / 4u) * 8u + {i} % 4u] ^= t << 4u;
    }
#end
#unroll i 16
    {
        let t = ((x[({i} / 2u) * 4u + {i} % 2u] >> 2u) ^ x[({i} / 2u) * 4u + {i} % 2u + 2u]) & 0x33333333u;
        x[({i} / 2u) * 4u + {i} % 2u + 2u] ^= t;
        x[({i} / 2u) * 4u + {i} % 2u] ^= t << 2u;
    }
#end
#unroll i 16
    {
        let t = ((x[{i} * 2u] >> 1u) ^ x[{i} * 2u + 1u]) & 0x55555555u;
        x[{i} * 2u + 1u] ^= t;
        x[{i} * 2u] ^= t << 1u;
    }
#end
    return x;
}
