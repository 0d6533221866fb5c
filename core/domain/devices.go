package domain

// DeviceChoice is a value of the llm.device setting that a picker offers:
// Setting is what the settings hold ("auto", "cpu", "Vulkan0"), Label what
// a person reads ("GPU: NVIDIA GeForce RTX 3060 (Vulkan0)").
type DeviceChoice struct {
	Setting string
	Label   string
}
