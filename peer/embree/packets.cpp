// Embree 4.4's packet calls as the peer of `wavekit trace bench` (issue 29: "Embree's own
// packet or stream calls ... called from native code"): the same meshes and rays that
// `wavekit trace bench --out DIR` wrote (MESH-vertices.npy, MESH-faces.npy,
// MESH-KIND-rays.npy float32 [N, 8], MESH-KIND-hits.npy), traced 16 rays at a time with
// rtcIntersect16 (closest hit) or rtcOccluded16 (shadow rays) on THREADS threads, each taking
// packets from a shared counter. Hits are checked against wavekit's (the same triangle, or t
// within 1e-4 relative) and one JSON line is printed a case: the median of RUNS timed passes
// after a warm-up pass, rays a second, mismatches.
//
// Built against Embree's own headers (not part of this repository) and the libembree4 of the
// embreex wheel; scripts/h200-embree-packets.sh says how.
//
// Usage: packets DIR [THREADS] [RUNS]
#include <embree4/rtcore.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace fs = std::filesystem;

// A .npy file's data (any header; the caller knows the dtype and row width).
static std::vector<char> npy_data(const fs::path& p, size_t& header) {
    std::ifstream f(p, std::ios::binary);
    std::vector<char> all((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    if (all.size() < 12 || std::memcmp(all.data(), "\x93NUMPY", 6) != 0) {
        std::fprintf(stderr, "%s: not a .npy file\n", p.c_str());
        std::exit(2);
    }
    size_t len = all[6] == 1 ? (uint8_t(all[8]) | uint8_t(all[9]) << 8)
                             : (uint8_t(all[8]) | uint8_t(all[9]) << 8 | uint8_t(all[10]) << 16 |
                                uint8_t(all[11]) << 24);
    header = (all[6] == 1 ? 10 : 12) + len;
    return all;
}

template <class T>
static std::vector<T> npy(const fs::path& p) {
    size_t h = 0;
    auto all = npy_data(p, h);
    std::vector<T> out((all.size() - h) / sizeof(T));
    std::memcpy(out.data(), all.data() + h, out.size() * sizeof(T));
    return out;
}

struct Hit {
    float t;
    uint32_t prim;
    float u, v;
};

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: packets DIR [THREADS] [RUNS]\n");
        return 2;
    }
    fs::path dir = argv[1];
    unsigned threads = argc > 2 ? std::stoi(argv[2]) : std::thread::hardware_concurrency();
    int runs = argc > 3 ? std::stoi(argv[3]) : 5;
    RTCDevice dev = rtcNewDevice(nullptr);
    std::printf("{\"record\": \"embree_packets\", \"threads\": %u, \"version\": \"%s\"}\n", threads,
                RTC_VERSION_STRING);
    for (auto& e : fs::directory_iterator(dir)) {
        std::string name = e.path().filename().string();
        const std::string suffix = "-vertices.npy";
        if (name.size() <= suffix.size() || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
            continue;
        std::string mesh = name.substr(0, name.size() - suffix.size());
        auto v = npy<float>(e.path());
        auto f = npy<uint32_t>(dir / (mesh + "-faces.npy"));
        auto t0 = std::chrono::steady_clock::now();
        RTCScene scene = rtcNewScene(dev);
        RTCGeometry g = rtcNewGeometry(dev, RTC_GEOMETRY_TYPE_TRIANGLE);
        float* vb = (float*)rtcSetNewGeometryBuffer(g, RTC_BUFFER_TYPE_VERTEX, 0, RTC_FORMAT_FLOAT3,
                                                    12, v.size() / 3);
        std::memcpy(vb, v.data(), v.size() * 4);
        uint32_t* ib = (uint32_t*)rtcSetNewGeometryBuffer(g, RTC_BUFFER_TYPE_INDEX, 0, RTC_FORMAT_UINT3,
                                                          12, f.size() / 3);
        std::memcpy(ib, f.data(), f.size() * 4);
        rtcCommitGeometry(g);
        rtcAttachGeometry(scene, g);
        rtcReleaseGeometry(g);
        rtcCommitScene(scene);
        double build = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::printf("{\"record\": \"embree_packets_build\", \"mesh\": \"%s\", \"triangles\": %zu, "
                    "\"seconds\": %.4f}\n",
                    mesh.c_str(), f.size() / 3, build);
        for (const char* kind : {"primary", "shadow", "diffuse", "random"}) {
            fs::path rf = dir / (mesh + "-" + kind + "-rays.npy");
            if (!fs::exists(rf)) continue;
            auto rays = npy<float>(rf);
            size_t n = rays.size() / 8;
            bool shadow = std::string(kind) == "shadow";
            std::vector<Hit> hits(n);
            std::vector<uint8_t> occ(n);
            size_t packets = (n + 15) / 16;
            auto pass = [&]() {
                std::atomic<size_t> next{0};
                auto work = [&]() {
                    alignas(64) RTCRayHit16 rh;
                    alignas(64) int valid[16];
                    for (;;) {
                        size_t p = next.fetch_add(8);
                        if (p >= packets) break;
                        for (size_t q = p; q < std::min(p + 8, packets); q++) {
                            for (int l = 0; l < 16; l++) {
                                size_t i = q * 16 + l;
                                valid[l] = i < n ? -1 : 0;
                                const float* r = &rays[std::min(i, n - 1) * 8];
                                rh.ray.org_x[l] = r[0];
                                rh.ray.org_y[l] = r[1];
                                rh.ray.org_z[l] = r[2];
                                rh.ray.tnear[l] = r[3];
                                rh.ray.dir_x[l] = r[4];
                                rh.ray.dir_y[l] = r[5];
                                rh.ray.dir_z[l] = r[6];
                                rh.ray.tfar[l] = r[7];
                                rh.ray.time[l] = 0.0f;
                                rh.ray.mask[l] = 0xffffffffu;
                                rh.ray.id[l] = 0;
                                rh.ray.flags[l] = 0;
                                rh.hit.geomID[l] = RTC_INVALID_GEOMETRY_ID;
                                rh.hit.primID[l] = RTC_INVALID_GEOMETRY_ID;
                                rh.hit.instID[0][l] = RTC_INVALID_GEOMETRY_ID;
                            }
                            if (shadow) {
                                rtcOccluded16(valid, scene, &rh.ray, nullptr);
                                for (int l = 0; l < 16 && q * 16 + l < n; l++)
                                    occ[q * 16 + l] = rh.ray.tfar[l] < 0.0f;
                            } else {
                                rtcIntersect16(valid, scene, &rh, nullptr);
                                for (int l = 0; l < 16 && q * 16 + l < n; l++) {
                                    bool hit = rh.hit.geomID[l] != RTC_INVALID_GEOMETRY_ID;
                                    hits[q * 16 + l] = Hit{hit ? rh.ray.tfar[l] : INFINITY,
                                                           hit ? rh.hit.primID[l] : 0xffffffffu,
                                                           rh.hit.u[l], rh.hit.v[l]};
                                }
                            }
                        }
                    }
                };
                std::vector<std::thread> ts;
                for (unsigned t = 0; t < threads; t++) ts.emplace_back(work);
                for (auto& t : ts) t.join();
            };
            pass();
            std::vector<double> times;
            for (int r = 0; r < runs; r++) {
                auto a = std::chrono::steady_clock::now();
                pass();
                times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count());
            }
            std::sort(times.begin(), times.end());
            double med = times[times.size() / 2];
            size_t mism = 0;
            fs::path hf = dir / (mesh + "-" + kind + "-hits.npy");
            if (shadow) {
                auto want = npy<uint8_t>(hf);
                for (size_t i = 0; i < n && i < want.size(); i++) mism += (want[i] != 0) != (occ[i] != 0);
            } else {
                auto want = npy<Hit>(hf);
                for (size_t i = 0; i < n && i < want.size(); i++) {
                    bool wh = want[i].prim != 0xffffffffu, eh = hits[i].prim != 0xffffffffu;
                    bool ok = wh == eh && (!wh || want[i].prim == hits[i].prim ||
                                           std::fabs(want[i].t - hits[i].t) <=
                                               1e-4f * std::max(std::fabs(want[i].t), 1.0f));
                    mism += !ok;
                }
            }
            std::printf("{\"record\": \"embree_packets_trace\", \"mesh\": \"%s\", \"rays\": \"%s\", "
                        "\"count\": %zu, \"call\": \"%s\", \"median_s\": %.6f, \"rays_per_s\": %.1f, "
                        "\"mismatches\": %zu}\n",
                        mesh.c_str(), kind, n, shadow ? "rtcOccluded16" : "rtcIntersect16", med, n / med,
                        mism);
            std::fflush(stdout);
        }
        rtcReleaseScene(scene);
    }
    rtcReleaseDevice(dev);
    return 0;
}
