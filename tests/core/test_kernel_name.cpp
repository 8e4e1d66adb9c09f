// Kernel names the user types (`--kernel`): the name with template arguments and the plain name
// taken apart from demangled names, and which kernel a name picks (core/build/kernel_name.h).
#include "core/build/kernel_name.h"

#include <gtest/gtest.h>

using namespace lowerscope;

TEST(KernelName, FormsOfADemangledName) {
    EXPECT_EQ(kernelNameWithArgs("void scaled_gemm<8>(int, float, float const*, float const*, float*)"), "scaled_gemm<8>");
    EXPECT_EQ(kernelPlainName("void scaled_gemm<8>(int, float, float const*, float const*, float*)"), "scaled_gemm");
    EXPECT_EQ(kernelNameWithArgs("saxpy(int, float, float const*, float*)"), "saxpy");
    EXPECT_EQ(kernelPlainName("saxpy(int, float, float const*, float*)"), "saxpy");
    EXPECT_EQ(kernelNameWithArgs("saxpy"), "saxpy"); // extern "C"
    // Blanks, commas, parentheses and nesting inside template arguments; a namespace.
    EXPECT_EQ(kernelNameWithArgs("void ns::gemm<Tile<64, 128>, (Layout)1, 4>(Params<float> const&)"),
              "ns::gemm<Tile<64, 128>, (Layout)1, 4>");
    EXPECT_EQ(kernelPlainName("void ns::gemm<Tile<64, 128>, (Layout)1, 4>(Params<float> const&)"), "ns::gemm");
    // A parameter that is a function pointer: the list is the one that matches the last ')'.
    EXPECT_EQ(kernelNameWithArgs("apply(float (*)(float), float*)"), "apply");
    EXPECT_EQ(kernelNameWithArgs(""), "");
}

TEST(KernelName, FindsByExactThenTemplateArgumentsThenUniquePlainName) {
    const std::vector<KernelName> ks = {
        {"_Z11scaled_gemmILi8EEvifPKfS1_Pf", "void scaled_gemm<8>(int, float, float const*, float const*, float*)"},
        {"_Z11scaled_gemmILi16EEvifPKfS1_Pf", "void scaled_gemm<16>(int, float, float const*, float const*, float*)"},
        {"_ZN2ns4tileILi4ELi2EEEvPf", "void ns::tile<4, 2>(float*)"},
        {"_Z5saxpyifPKfPf", "saxpy(int, float, float const*, float*)"},
        {"_Z5scaleIfEvPT_", "void scale<float>(float*)"},
        {"_Z5scaleIdEvPT_", "void scale<double>(double*)"},
    };
    std::string error;
    EXPECT_EQ(findKernel(ks, "_Z11scaled_gemmILi16EEvifPKfS1_Pf", &error), 1);
    EXPECT_EQ(findKernel(ks, "void scaled_gemm<8>(int, float, float const*, float const*, float*)", &error), 0);
    EXPECT_EQ(findKernel(ks, "scaled_gemm<8>", &error), 0);
    EXPECT_EQ(findKernel(ks, "scaled_gemm<16>", &error), 1);
    EXPECT_EQ(findKernel(ks, "scaled_gemm< 16 >", &error), 1); // whitespace ignored
    EXPECT_EQ(findKernel(ks, "ns::tile<4,2>", &error), 2);
    EXPECT_EQ(findKernel(ks, "tile<4, 2>", &error), 2); // namespace left out
    EXPECT_EQ(findKernel(ks, "tile", &error), 2);       // the only "tile"
    EXPECT_EQ(findKernel(ks, "saxpy", &error), 3);
    EXPECT_EQ(findKernel(ks, "scale<double>", &error), 5);
    EXPECT_TRUE(error.empty()) << error;

    // Two instantiations share the plain name: ambiguous, and the error lists both.
    EXPECT_EQ(findKernel(ks, "scaled_gemm", &error), -1);
    EXPECT_NE(error.find("ambiguous"), std::string::npos) << error;
    EXPECT_NE(error.find("scaled_gemm<8>"), std::string::npos) << error;
    EXPECT_NE(error.find("scaled_gemm<16>"), std::string::npos) << error;
    EXPECT_EQ(error.find("saxpy"), std::string::npos) << error;
    // Unknown names list every kernel; a wrong template argument is not the plain name.
    EXPECT_EQ(findKernel(ks, "scaled_gemm<32>", &error), -1);
    EXPECT_NE(error.find("no kernel named 'scaled_gemm<32>'"), std::string::npos) << error;
    EXPECT_NE(error.find("saxpy"), std::string::npos) << error;
    EXPECT_EQ(findKernel(ks, "gemm", &error), -1); // no partial names
    EXPECT_EQ(findKernel(ks, "", &error), -1);
    EXPECT_EQ(findKernel({}, "saxpy", &error), -1);
    EXPECT_NE(error.find("none"), std::string::npos) << error;
}
