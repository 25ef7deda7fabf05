"""Names, designs and catalogues shared by the domain and infra; imports nothing heavy."""
