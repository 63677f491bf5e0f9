import { vi } from "vitest";

// Unit files share their worker threads (vitest.config.ts): the packages they import stay loaded,
// and the project's own modules are evaluated afresh for each file, so no file sees state another
// left in a module (a clock a test faked carried into the UUIDv7 generator's last millisecond).
vi.resetModules();
