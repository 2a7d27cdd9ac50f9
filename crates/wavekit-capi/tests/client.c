/* A C program on wavekit's C API (include/wavekit.h), built and run by tests/c_client.rs with
 * the system's C compiler: a picture encoded at a budget, decoded, a block's offset damaged
 * and concealed, the frame cut into datagrams, shuffled, duplicated, one lost, put back
 * together; every error path gives its status and a message. Usage: client cpu|gpu OUT.wkv
 * (the frame it encoded, which the Rust test compares with the Rust encoder's). Exit 0 when
 * every check passed, 1 (with the failed check on stderr) when one did not. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wavekit.h"

#define W 64
#define H 48
#define BUDGET 1500

static int failures = 0;
#define CHECK(cond, ...)                                                                   \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "FAILED %s:%d: %s: ", __FILE__, __LINE__, #cond);              \
            fprintf(stderr, __VA_ARGS__);                                                  \
            fprintf(stderr, " (last error: %s)\n", wk_last_error());                       \
            failures++;                                                                    \
        }                                                                                  \
    } while (0)

static double psnr(const uint8_t *a, const uint8_t *b, size_t n) {
    double se = 0;
    for (size_t i = 0; i < n; i++) {
        double d = (double)a[i] - (double)b[i];
        se += d * d;
    }
    return se == 0 ? 99.0 : 10.0 * log10(255.0 * 255.0 * n / se);
}

/* The datagrams of a frame, kept by the emit callback. */
typedef struct {
    uint8_t *data[512];
    size_t len[512];
    size_t count;
} Datagrams;

static void keep(void *user, const uint8_t *d, size_t n) {
    Datagrams *ds = (Datagrams *)user;
    if (ds->count < 512) {
        ds->data[ds->count] = malloc(n);
        memcpy(ds->data[ds->count], d, n);
        ds->len[ds->count] = n;
        ds->count++;
    }
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: client cpu|gpu OUT.wkv\n");
        return 2;
    }
    int cpu = strcmp(argv[1], "cpu") == 0;
    static uint8_t rgb[W * H * 3], back[W * H * 3], frame[BUDGET], again[BUDGET + 4096];
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            uint8_t *p = &rgb[(y * W + x) * 3];
            p[0] = (uint8_t)(x * 4);
            p[1] = (uint8_t)(y * 5);
            p[2] = (uint8_t)((x + y) * 2 + ((x * 7 + y * 13) % 11));
        }

    WkContext *ctx = NULL;
    WkStatus s = wk_context_new(NULL, cpu, &ctx);
    CHECK(s == WK_STATUS_OK && ctx != NULL, "a context (%s)", argv[1]);
    if (!ctx) return 1;

    WkEncodeConfig cfg = {.width = W, .height = H, .chroma = 420, .levels = 3, .budget_bytes = BUDGET, .lossless = 0};
    WkEncoder *enc = NULL;
    CHECK(wk_encoder_new(ctx, &cfg, &enc) == WK_STATUS_OK, "an encoder");
    size_t len = 0;
    CHECK(wk_encode_rgb(enc, rgb, sizeof rgb, frame, sizeof frame, &len) == WK_STATUS_OK, "an encode");
    CHECK(len > 0 && len <= BUDGET, "a frame within its budget: %zu", len);
    FILE *f = fopen(argv[2], "wb");
    CHECK(f != NULL, "open %s", argv[2]);
    if (f) {
        fwrite(frame, 1, len, f);
        fclose(f);
    }

    /* Errors: each a status and a message, nothing written past a buffer. */
    size_t need = 0;
    CHECK(wk_encode_rgb(enc, rgb, sizeof rgb, frame, 10, &need) == WK_STATUS_BUFFER_TOO_SMALL, "a small buffer");
    CHECK(need == len, "the size needed: %zu", need);
    CHECK(wk_encode_rgb(enc, rgb, 5, frame, sizeof frame, &need) == WK_STATUS_INVALID_ARGUMENT, "short RGB");
    CHECK(strstr(wk_last_error(), "3 a pixel") != NULL, "the message says what to give: %s", wk_last_error());
    CHECK(wk_encode_rgb(NULL, rgb, sizeof rgb, frame, sizeof frame, &need) == WK_STATUS_INVALID_ARGUMENT, "a null encoder");
    WkEncodeConfig bad = cfg;
    bad.chroma = 422;
    WkEncoder *none = NULL;
    CHECK(wk_encoder_new(ctx, &bad, &none) == WK_STATUS_INVALID_ARGUMENT && none == NULL, "chroma 422 refused");
    uint32_t w = 0, h = 0;
    CHECK(wk_frame_size((const uint8_t *)"garbage, not a frame at all", 27, &w, &h) == WK_STATUS_BITSTREAM, "garbage");
    CHECK(wk_frame_size(frame, len, &w, &h) == WK_STATUS_OK && w == W && h == H, "the frame's size");

    /* Decode: close to the picture, nothing damaged. */
    WkDecoder *dec = NULL;
    CHECK(wk_decoder_new(ctx, frame, len, BUDGET + 4096, &dec) == WK_STATUS_OK, "a decoder");
    uint32_t damaged = 99;
    CHECK(wk_decode_rgb(dec, frame, len, back, sizeof back, &damaged) == WK_STATUS_OK, "a decode");
    double q = psnr(rgb, back, sizeof back);
    CHECK(damaged == 0 && q > 25.0, "damaged %u, PSNR %.2f dB", damaged, q);

    /* A block's offset pointing into the header: that block concealed and counted. */
    memcpy(again, frame, len);
    memset(again + 24 + 4 * 2, 0, 4);
    CHECK(wk_decode_rgb(dec, again, len, back, sizeof back, &damaged) == WK_STATUS_OK && damaged == 1, "one damaged block: %u", damaged);

    /* Datagrams: cut at 256 bytes, shuffled and one duplicated, all in: the frame exactly. */
    Datagrams ds = {0};
    WkFrameInfo info = {.stream = 7, .frame = 0, .capture_us = 1000, .encode_us = 5, .tag = 0, .rate_num = 60, .rate_den = 1};
    CHECK(wk_packetize(frame, len, &info, 256, keep, &ds) == WK_STATUS_OK && ds.count > 2, "datagrams: %zu", ds.count);
    CHECK(wk_packetize(frame, len, &info, 10, keep, &ds) == WK_STATUS_INVALID_ARGUMENT, "an MTU of 10 refused");
    WkReceiver *rx = wk_receiver_new(0);
    srand(3);
    for (size_t i = ds.count - 1; i > 0; i--) {
        size_t j = (size_t)rand() % (i + 1);
        uint8_t *t = ds.data[i]; ds.data[i] = ds.data[j]; ds.data[j] = t;
        size_t u = ds.len[i]; ds.len[i] = ds.len[j]; ds.len[j] = u;
    }
    for (size_t i = 0; i < ds.count; i++) CHECK(wk_receiver_accept(rx, ds.data[i], ds.len[i], 10) == WK_STATUS_OK, "datagram %zu", i);
    CHECK(wk_receiver_accept(rx, ds.data[0], ds.len[0], 10) == WK_STATUS_INVALID_ARGUMENT, "a duplicate dropped");
    WkAssembledInfo got = {0};
    size_t glen = 0;
    CHECK(wk_receiver_next(rx, 10, 100000, again, sizeof again, &glen, &got) == WK_STATUS_OK, "the frame is due");
    CHECK(glen == len && memcmp(again, frame, len) == 0 && got.complete && got.missing == 0, "the frame back exactly");
    CHECK(got.info.stream == 7 && got.info.rate_num == 60, "the sender's fields");
    CHECK(wk_receiver_next(rx, 10, 100000, again, sizeof again, &glen, &got) == WK_STATUS_NONE, "nothing more");

    /* Frame 1 with its second datagram lost: due at its deadline, its blocks concealed. */
    Datagrams ds1 = {0};
    info.frame = 1;
    CHECK(wk_packetize(frame, len, &info, 256, keep, &ds1) == WK_STATUS_OK, "frame 1");
    for (size_t i = 0; i < ds1.count; i++)
        if (i != 1) wk_receiver_accept(rx, ds1.data[i], ds1.len[i], 20);
    CHECK(wk_receiver_next(rx, 30, 50, again, sizeof again, &glen, &got) == WK_STATUS_NONE, "not due before the deadline");
    CHECK(wk_receiver_next(rx, 80, 50, again, sizeof again, &glen, &got) == WK_STATUS_OK, "due at the deadline");
    CHECK(!got.complete && got.missing > 0 && got.datagrams_received + 1 == got.datagrams_sent, "missing %u", got.missing);
    CHECK(wk_decode_rgb(dec, again, glen, back, sizeof back, &damaged) == WK_STATUS_OK && damaged == got.missing,
          "the decoder conceals exactly the missing blocks: %u of %u", damaged, got.missing);
    uint64_t dropped = 0, lost = 0;
    CHECK(wk_receiver_counts(rx, &dropped, &lost) == WK_STATUS_OK && dropped == 1 && lost == 0, "counts %llu %llu",
          (unsigned long long)dropped, (unsigned long long)lost);

    /* Forward error correction: a parity datagram after every 2; the first of each group lost,
       rebuilt from the parity; the frame back exactly. */
    Datagrams ds2 = {0};
    info.frame = 2;
    CHECK(wk_packetize_fec(frame, len, &info, 400, 2, keep, &ds2) == WK_STATUS_OK, "with parity");
    size_t in_group = 0, dropped_here = 0;
    for (size_t i = 0; i < ds2.count; i++) {
        int parity = ds2.data[i][3] == 3;
        if (!parity && in_group++ == 0) {
            dropped_here++;
            continue;
        }
        if (parity) in_group = 0;
        CHECK(wk_receiver_accept(rx, ds2.data[i], ds2.len[i], 100) == WK_STATUS_OK, "fec datagram %zu", i);
    }
    CHECK(wk_receiver_next(rx, 100, 50, again, sizeof again, &glen, &got) == WK_STATUS_OK, "frame 2 complete");
    CHECK(got.complete && got.datagrams_recovered == dropped_here && glen == len && memcmp(again, frame, len) == 0,
          "rebuilt %u of %zu, the frame exactly", got.datagrams_recovered, dropped_here);

    /* Concealment from the previous frame: a receiver that keeps the last frame's blocks. */
    WkReceiver *prx = wk_receiver_new(1);
    info.frame = 0;
    Datagrams a0 = {0}, a1 = {0};
    wk_packetize(frame, len, &info, 256, keep, &a0);
    info.frame = 1;
    wk_packetize(frame, len, &info, 256, keep, &a1);
    for (size_t i = 0; i < a0.count; i++) wk_receiver_accept(prx, a0.data[i], a0.len[i], 0);
    CHECK(wk_receiver_next(prx, 0, 50, again, sizeof again, &glen, &got) == WK_STATUS_OK, "frame 0");
    for (size_t i = 1; i < a1.count; i++) wk_receiver_accept(prx, a1.data[i], a1.len[i], 10);
    CHECK(wk_receiver_next(prx, 70, 50, again, sizeof again, &glen, &got) == WK_STATUS_OK, "frame 1 at its deadline");
    CHECK(got.missing > 0 && got.from_previous == got.missing, "every missing block from frame 0: %u of %u",
          got.from_previous, got.missing);
    CHECK(wk_decode_rgb(dec, again, glen, back, sizeof back, &damaged) == WK_STATUS_OK && damaged == 0,
          "nothing damaged: %u", damaged);
    CHECK(glen == len && memcmp(again, frame, len) == 0, "the same picture twice: the frame itself");
    wk_receiver_free(prx);

    for (size_t i = 0; i < ds.count; i++) free(ds.data[i]);
    for (size_t i = 0; i < ds1.count; i++) free(ds1.data[i]);
    for (size_t i = 0; i < ds2.count; i++) free(ds2.data[i]);
    for (size_t i = 0; i < a0.count; i++) free(a0.data[i]);
    for (size_t i = 0; i < a1.count; i++) free(a1.data[i]);
    wk_receiver_free(rx);
    wk_decoder_free(dec);
    wk_encoder_free(enc);
    wk_context_free(ctx);
    wk_context_free(NULL);
    if (failures) {
        fprintf(stderr, "%d checks failed\n", failures);
        return 1;
    }
    printf("client (%s): %zu-byte frame, PSNR %.2f dB, %zu datagrams, all checks passed\n", argv[1], len, q, ds.count);
    return 0;
}
