// The contact system's layout; the twin of contact_layout.wgsl, which explains it: contact c at
// texel row c % H of segment c / H (H = the output's texel rows), w columns per contact.

int contact_height() {
    return u_shapes[0].w;
}

ivec2 contact_place(int c, int h) {
    return ivec2(c / h, c % h);
}

ivec2 contact_texel(int c) {
    return contact_place(c, contact_height());
}

int contact_column(int segment, int k, int w) {
    return w * segment + k;
}

