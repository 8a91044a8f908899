/* SPDX-License-Identifier: MIT */
/* Backend-independent entry points of the hardware interface: argument checks and
 * dispatch to the backend's ops. Every hardware access in umsrestore passes here. */
#include "hw/hw.h"

Hw *hw_free(Hw *hw)
{
        if (!hw)
                return NULL;
        if (hw->ops && hw->ops->free)
                hw->ops->free(hw);
        else
                free(hw);
        return NULL;
}

#define HW_CALL(hw, op, ...) ((hw) && (hw)->ops->op ? (hw)->ops->op((hw), __VA_ARGS__) : -EOPNOTSUPP)

int hw_inb(Hw *hw, uint16_t port, uint8_t *ret)
{
        uint32_t v;
        int r = HW_CALL(hw, io_read, port, 1, &v);
        if (r < 0)
                return r;
        *ret = (uint8_t)v;
        return 0;
}

int hw_outb(Hw *hw, uint16_t port, uint8_t value)
{
        return HW_CALL(hw, io_write, port, 1, value);
}

int hw_inw(Hw *hw, uint16_t port, uint16_t *ret)
{
        uint32_t v;
        int r = HW_CALL(hw, io_read, port, 2, &v);
        if (r < 0)
                return r;
        *ret = (uint16_t)v;
        return 0;
}

int hw_outw(Hw *hw, uint16_t port, uint16_t value)
{
        return HW_CALL(hw, io_write, port, 2, value);
}

static bool vga_range_ok(uint32_t offset, size_t len)
{
        return offset <= HW_VGA_MEM_SIZE && len <= HW_VGA_MEM_SIZE - offset;
}

int hw_vga_mem_read(Hw *hw, uint32_t offset, void *buf, size_t len)
{
        if (!vga_range_ok(offset, len))
                return -ERANGE;
        return HW_CALL(hw, vga_mem_read, offset, buf, len);
}

int hw_vga_mem_write(Hw *hw, uint32_t offset, const void *buf, size_t len)
{
        if (!vga_range_ok(offset, len))
                return -ERANGE;
        return HW_CALL(hw, vga_mem_write, offset, buf, len);
}

int hw_cfg_read(Hw *hw, uint32_t offset, void *buf, size_t len)
{
        if (offset > 4096 || len > 4096 - offset)
                return -ERANGE;
        return HW_CALL(hw, cfg_read, offset, buf, len);
}

int hw_cfg_write(Hw *hw, uint32_t offset, const void *buf, size_t len)
{
        if (offset > 4096 || len > 4096 - offset)
                return -ERANGE;
        return HW_CALL(hw, cfg_write, offset, buf, len);
}

int hw_mmio_read32(Hw *hw, unsigned bar, uint32_t offset, uint32_t *ret)
{
        if (bar > 5 || offset % 4)
                return -EINVAL;
        return HW_CALL(hw, mmio_read32, bar, offset, ret);
}

int hw_mmio_write32(Hw *hw, unsigned bar, uint32_t offset, uint32_t value)
{
        if (bar > 5 || offset % 4)
                return -EINVAL;
        return HW_CALL(hw, mmio_write32, bar, offset, value);
}

int hw_rom_read(Hw *hw, void *buf, size_t len)
{
        return HW_CALL(hw, rom_read, buf, len);
}

void hw_delay_us(Hw *hw, unsigned usec)
{
        if (hw && hw->ops->delay_us)
                hw->ops->delay_us(hw, usec);
}

int hw_vga_lock(Hw *hw)
{
        if (!hw)
                return -EINVAL;
        return hw->ops->vga_lock ? hw->ops->vga_lock(hw) : 0;
}

int hw_vga_unlock(Hw *hw)
{
        if (!hw)
                return -EINVAL;
        return hw->ops->vga_unlock ? hw->ops->vga_unlock(hw) : 0;
}
